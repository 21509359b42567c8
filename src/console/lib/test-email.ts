/**
 * The console's "Send test email": what its form starts with, the message it sends
 * (POST /api/v1/emails, as the console's session) and where the API's field errors are shown.
 */

/** The local part a test is sent from unless changed: hello@<domain>. */
export const DEFAULT_LOCAL_PART = 'hello'

export const TEST_SUBJECT = 'Test email from Mailstead'

export const testBody = (project: string) =>
  `Hello,\n\nThis is a test email from the project ${project}, sent from the Mailstead console. If it reached your inbox, sending works.`

/** The domain of an address ("ada@example.com" gives "example.com"); undefined when it has none. */
export function domainOf(address: string | undefined): string | undefined {
  const at = address?.lastIndexOf('@') ?? -1
  return address && at > 0 && at < address.length - 1 ? address.slice(at + 1) : undefined
}

/** Text as an HTML body: escaped, paragraphs at blank lines, line breaks kept. */
export function htmlOfText(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
  return escaped
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${paragraph.replace(/\n/g, '<br>')}</p>`)
    .join('\n')
}

export type TestEmailField = 'to' | 'from' | 'subject' | 'body'

/** The form's field an API error names: `to[0]` is To, `html` and `text` are the body. */
export function formFieldOf(apiField: string): TestEmailField | undefined {
  if (apiField === 'to' || apiField.startsWith('to[') || apiField.startsWith('to.')) return 'to'
  if (apiField === 'from') return 'from'
  if (apiField === 'subject') return 'subject'
  if (apiField === 'html' || apiField === 'text') return 'body'
  return undefined
}

export interface TestEmailInput {
  to: string
  from: string
  subject: string
  body: string
}

/** What is wrong before the API is asked, as sentences beside each field. */
export function testEmailProblems(input: TestEmailInput): Partial<Record<TestEmailField, string>> {
  const problems: Partial<Record<TestEmailField, string>> = {}
  if (input.to.trim() === '') problems.to = 'Enter the address to send the test to.'
  else if (!/^[^\s@]+@[^\s@]+$/.test(input.to.trim())) problems.to = 'Enter one email address, such as jane@example.com.'
  const local = input.from.slice(0, input.from.lastIndexOf('@'))
  if (input.from.trim() === '' || local.trim() === '') problems.from = 'Enter the address to send from.'
  else if (!/^[^\s@]+@[^\s@]+$/.test(input.from.trim())) problems.from = 'Enter one sender address, such as hello@example.com.'
  if (input.subject.trim() === '') problems.subject = 'Enter a subject.'
  if (input.body.trim() === '') problems.body = 'Write a few words for the message.'
  return problems
}

/** The API's body for the test: the text and the same words as HTML. */
export const sendBodyOf = (input: TestEmailInput) => ({
  to: input.to.trim(),
  from: input.from.trim(),
  subject: input.subject.trim(),
  text: input.body,
  html: htmlOfText(input.body),
})
