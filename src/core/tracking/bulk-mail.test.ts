import { describe, expect, test } from 'bun:test'
import { bulkMarks, feedbackId, withBulkHeaders, withUnsubscribeFooter } from './bulk-mail.ts'

const URL = 'https://mail.example.com/unsubscribe/abc'

describe('bulk marks', () => {
  test('Feedback-ID is campaign:project:stream:mailstead, with no colon left inside a field', () => {
    expect(feedbackId({ campaign: '01a2-b3', project: 7, stream: 'workflow' })).toBe('01a2-b3:7:workflow:mailstead')
    expect(feedbackId({ campaign: 'a:b', project: 7, stream: 'send' })).toBe('ab:7:send:mailstead')
  })

  test('every marketing email gets one-click unsubscribe, Precedence: bulk and Feedback-ID', () => {
    const marks = bulkMarks({ secret: 'a-server-secret-of-enough-length-123', baseUrl: 'https://mail.example.com', emailId: 'e1', mailDomain: 'mst.example.com', feedback: { campaign: 'c1', project: 1, stream: 'campaign' } })
    expect(Object.keys(marks.headers)).toEqual(['List-Unsubscribe', 'List-Unsubscribe-Post', 'Precedence', 'Feedback-ID'])
    expect(marks.headers['List-Unsubscribe']).toBe(`<${marks.unsubscribe.url}>, <${marks.unsubscribe.mailto}>`)
    expect(marks.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
  })

  test("a caller's header of the same name gives way, whatever its case; others stay", () => {
    expect(withBulkHeaders({ 'list-unsubscribe': '<https://x.example/>', 'X-App': '1' }, { 'List-Unsubscribe': '<ours>' })).toEqual({ 'X-App': '1', 'List-Unsubscribe': '<ours>' })
  })
})

describe('withUnsubscribeFooter', () => {
  test('adds a line before </body>, and one after the text', () => {
    const out = withUnsubscribeFooter({ html: '<body><p>Hi</p></body>', text: 'Hi' }, { html: '<body><p>Hi</p></body>', text: 'Hi' }, URL)
    expect(out.html).toMatch(/<p>Hi<\/p><p [^>]+><a href="https:\/\/mail\.example\.com\/unsubscribe\/abc"[^>]*>Unsubscribe<\/a><\/p><\/body>$/)
    expect(out.text).toBe(`Hi\n\n--\nUnsubscribe: ${URL}\n`)
  })

  test('leaves a body alone whose source places {{unsubscribeUrl}} itself', () => {
    const out = withUnsubscribeFooter({ html: `<a href="${URL}">Leave</a>` }, { html: '<a href="{{ unsubscribeUrl }}">Leave</a>' }, URL)
    expect(out.html).toBe(`<a href="${URL}">Leave</a>`)
  })
})
