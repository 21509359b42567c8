import { describe, expect, test } from 'bun:test'
import { domainOf, formFieldOf, htmlOfText, sendBodyOf, testEmailProblems } from './test-email.ts'

describe('the test email', () => {
  test('its body as HTML is escaped, in paragraphs, its line breaks kept', () => {
    expect(htmlOfText('Hello <b>you</b> & "them",\n\nLine one\nline two\n\n\n')).toBe('<p>Hello &lt;b&gt;you&lt;/b&gt; &amp; &quot;them&quot;,</p>\n<p>Line one<br>line two</p>')
    expect(sendBodyOf({ to: ' jane@example.net ', from: 'hello@example.com', subject: ' Hi ', body: 'Hi' })).toEqual({ to: 'jane@example.net', from: 'hello@example.com', subject: 'Hi', text: 'Hi', html: '<p>Hi</p>' })
  })

  test("the API's field names are the form's fields", () => {
    expect(['to', 'to[0]', 'from', 'subject', 'html', 'text', 'headers'].map(formFieldOf)).toEqual(['to', 'to', 'from', 'subject', 'body', 'body', undefined])
  })

  test('what is missing or not an address is said in sentences before the API is asked', () => {
    expect(testEmailProblems({ to: '', from: '@example.com', subject: ' ', body: '' })).toEqual({
      to: 'Enter the address to send the test to.',
      from: 'Enter the address to send from.',
      subject: 'Enter a subject.',
      body: 'Write a few words for the message.',
    })
    expect(testEmailProblems({ to: 'jane', from: 'a b@example.com', subject: 'Hi', body: 'Hi' })).toEqual({
      to: 'Enter one email address, such as jane@example.com.',
      from: 'Enter one sender address, such as hello@example.com.',
    })
    expect(testEmailProblems({ to: 'jane@example.net', from: 'hello@example.com', subject: 'Hi', body: 'Hi' })).toEqual({})
  })

  test('the domain of an address', () => {
    expect([domainOf('ada@example.com'), domainOf('example.com'), domainOf('ada@'), domainOf(undefined)]).toEqual(['example.com', undefined, undefined, undefined])
  })
})
