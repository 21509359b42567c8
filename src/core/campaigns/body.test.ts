import { describe, expect, test } from 'bun:test'
import { renderCampaignBody } from './body.ts'

const URL = 'https://mail.example.com/unsubscribe/abc-def'
const campaign = (html: string | null, content: string | null = null, preview_text: string | null = null) => ({ html, content, preview_text })

describe('renderCampaignBody', () => {
  test('fills placeholders from the contact, with fallbacks for what it lacks', () => {
    const { html } = renderCampaignBody(campaign('<p>Hi {{data.firstName ?? "there"}}, {{email}}</p><a href="{{unsubscribeUrl}}">x</a>'), { email: 'a@x.com', data: {} }, URL)
    expect(html).toBe(`<p>Hi there, a@x.com</p><a href="${URL}">x</a>`)
  })

  test('escapes contact data in HTML so it cannot inject markup', () => {
    const { html } = renderCampaignBody(campaign('<p>{{data.firstName}}</p>{{unsubscribeUrl}}'), { data: { firstName: '<script>' } }, URL)
    expect(html).toContain('&lt;script&gt;')
  })

  test('adds an unsubscribe footer before </body> when the body places no link itself', () => {
    const { html } = renderCampaignBody(campaign('<html><body><p>News</p></body></html>'), {}, URL)
    expect(html).toMatch(/<p>News<\/p><p [^>]*><a href="https:\/\/mail\.example\.com\/unsubscribe\/abc-def"[^>]*>Unsubscribe<\/a><\/p><\/body><\/html>$/)
  })

  test('adds the footer at the end of HTML without a body tag', () => {
    expect(renderCampaignBody(campaign('<p>News</p>'), {}, URL).html).toEndWith('Unsubscribe</a></p>')
  })

  test('a campaign with content and no html is plain text, with the link in a footer', () => {
    const body = renderCampaignBody(campaign(null, 'Hello {{email}}'), { email: 'a@x.com' }, URL)
    expect(body.html).toBeUndefined()
    expect(body.text).toBe(`Hello a@x.com\n\n--\nUnsubscribe: ${URL}\n`)
  })

  test('with html, content is not a body (useSend keeps its editor document there)', () => {
    expect(renderCampaignBody(campaign('<p>x</p>{{unsubscribeUrl}}', '{"type":"doc"}'), {}, URL).text).toBeUndefined()
  })

  test('puts the preview text, escaped and hidden, right after <body>', () => {
    const { html } = renderCampaignBody(campaign('<body class="x"><p>News</p>{{unsubscribeUrl}}</body>', null, 'Big & new'), {}, URL)
    expect(html).toStartWith('<body class="x"><div style="display:none;')
    expect(html).toContain('Big &amp; new</div><p>News</p>')
  })
})
