import { describe, expect, test } from 'bun:test'
import { textFromHtml } from './text-part.ts'

/** The URLs a filter finds in a text: http(s) links and bare addresses. */
const urlsIn = (text: string) => [...text.matchAll(/https?:\/\/[^\s\]]+|[\w.+-]+@[\w-]+(\.[\w-]+)+/g)].map((m) => m[0])

describe('the text part made from HTML', () => {
  test('keeps headings as they are written, not upper-cased', () => {
    expect(textFromHtml('<h1>Reset your password</h1><h2>Why</h2><p>Body</p>')).toBe('Reset your password\n\n\nWhy\n\nBody')
  })

  test('writes a mailto link as its address, without the query, once', () => {
    expect(textFromHtml('<p>Write to <a href="mailto:help@acme.example?subject=Reset%20help">help@acme.example</a>.</p>')).toBe('Write to help@acme.example.')
    expect(textFromHtml('<p><a href="mailto:help@acme.example?subject=x">our helpers</a></p>')).toBe('our helpers [help@acme.example]')
    expect(textFromHtml('<p><a href="mailto:Help%20Desk%20%3Chelp@acme.example%3E">us</a></p>')).toBe('us [help@acme.example]')
  })

  test('names each link of the HTML once, and a link that shows its own URL only once', () => {
    const html = '<p><a href="https://acme.example/a">Read</a> <a href="https://acme.example/b">https://acme.example/b</a> <a href="mailto:x@acme.example">mail us</a></p>'
    expect(urlsIn(textFromHtml(html))).toEqual(['https://acme.example/a', 'https://acme.example/b', 'x@acme.example'])
  })

  test('leaves out what the HTML hides, such as a newsletter preview text', () => {
    const html = '<span style="display:none;max-height:0">Preview words</span><div style="display: none">More</div><p hidden>Hid</p><p>Seen</p>'
    expect(textFromHtml(html)).toBe('Seen')
  })

  test('lays a data table out in columns, and a layout table cell by cell', () => {
    const data = '<table><tr><th>Plan</th><th>Members</th></tr><tr><td>Free</td><td>5</td></tr><tr><td>Team</td><td>50</td></tr></table>'
    expect(textFromHtml(data)).toBe('Plan   Members\nFree   5\nTeam   50')
    const layout = '<table role="presentation"><tbody><tr><td>Left column</td><td>Right column</td></tr></tbody></table>'
    expect(textFromHtml(layout)).toBe('Left column\nRight column')
  })

  test('wraps at 72 columns and never breaks a URL', () => {
    const long = `https://acme.example/${'x'.repeat(90)}`
    const text = textFromHtml(`<p>${'word '.repeat(40)}<a href="${long}">go</a></p>`)
    expect(text.split('\n').filter((line) => !line.includes(long)).every((line) => line.length <= 72)).toBe(true)
    expect(text).toContain(long)
  })
})
