import { describe, expect, test } from 'bun:test'
import { trackingAskedBy, trackRelayedHtml } from './relay-tracking.ts'

const message = (type: string, encoding: string, body: string) =>
  new TextEncoder().encode(`From: a@x.example\r\nSubject: s\r\nContent-Type: ${type}\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${body}\r\n`)
const mark = (html: string) => html.replace('</p>', '!</p>')
const text = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes)

describe('X-Mailstead-Track', () => {
  test.each([
    ['opens, clicks', { trackOpens: true, trackClicks: true }],
    ['Clicks', { trackOpens: false, trackClicks: true }],
    ['opens', { trackOpens: true, trackClicks: false }],
    ['none', { trackOpens: false, trackClicks: false }],
  ])('%s', (value, asked) => {
    expect(trackingAskedBy(value)).toEqual(asked)
  })

  test('absent asks for nothing; an unknown word or an empty value is a 422', () => {
    expect(trackingAskedBy(undefined)).toEqual({})
    expect(() => trackingAskedBy('all')).toThrow('"all" is not one of opens, clicks, none')
    expect(() => trackingAskedBy(' , ')).toThrow('is not one of opens, clicks, none')
  })
})

describe('trackRelayedHtml', () => {
  test('an 8bit UTF-8 HTML part is changed and sent quoted-printable; the head is kept', async () => {
    const out = text(await trackRelayedHtml(message('text/html; charset=utf-8', '8bit', '<p>Grüße</p>'), mark))
    expect(out).toStartWith('From: a@x.example\r\nSubject: s\r\n')
    expect(out).toContain('Content-Transfer-Encoding: quoted-printable')
    expect(out).toContain('<p>Gr=C3=BC=C3=9Fe!</p>')
  })

  test('an HTML part in another charset, and a text part, are left as written', async () => {
    const latin = message('text/html; charset=iso-8859-1', 'quoted-printable', '<p>Gr=FC=DFe</p>')
    expect(text(await trackRelayedHtml(latin, mark))).toBe(text(latin))
    const plain = message('text/plain; charset=utf-8', '7bit', '<p>x</p>')
    expect(text(await trackRelayedHtml(plain, mark))).toBe(text(plain))
  })
})
