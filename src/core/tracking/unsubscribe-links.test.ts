import { describe, expect, test } from 'bun:test'
import { signToken } from '../../lib/signed.ts'
import { emailOfUnsubscribeAddress, emailOfUnsubscribeToken, unsubscribeLinks } from './unsubscribe-links.ts'

const SECRET = 'a-server-secret-of-enough-length-123'
const EMAIL = '0193a1b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b'
const links = unsubscribeLinks({ secret: SECRET, baseUrl: 'https://mail.example.org', emailId: EMAIL, mailDomain: 'mst.sender.example.com' })
const token = links.url.slice(links.url.lastIndexOf('/') + 1)

describe('unsubscribe links', () => {
  test('a page on this server, and a mail to the return-path host, with one token', () => {
    expect(token).toMatch(/^0193a1b27c4d7e8f9a0b1c2d3e4f5a6b-[a-z2-7]{16}$/)
    expect(links.url).toBe(`https://mail.example.org/unsubscribe/${token}`)
    expect(links.mailto).toBe(`mailto:unsubscribe+${token}@mst.sender.example.com?subject=unsubscribe`)
  })

  test('the headers of RFC 2369 and RFC 8058', () => {
    expect(links.headers).toEqual({
      'List-Unsubscribe': `<${links.url}>, <${links.mailto}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
  })

  test('the mail address fits the 64 octets of a local part', () => {
    expect(`unsubscribe+${token}`.length).toBeLessThanOrEqual(64)
  })

  test('the token gives back the email id, even with its case folded', () => {
    expect(emailOfUnsubscribeToken(SECRET, token)).toBe(EMAIL)
    expect(emailOfUnsubscribeToken(SECRET, token.toUpperCase())).toBe(EMAIL)
  })

  test('an email id that is not a UUID is signed as it is', () => {
    const other = unsubscribeLinks({ secret: SECRET, baseUrl: 'https://x.example', emailId: 'legacy-42', mailDomain: 'x.example' })
    expect(emailOfUnsubscribeToken(SECRET, other.url.split('/').at(-1)!)).toBe('legacy-42')
  })

  test.each([
    ['another email id', () => token.replace('0193', '0194')],
    ['another signature', () => token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a')],
    ['no signature', () => token.slice(0, token.lastIndexOf('-'))],
    ['another secret', () => unsubscribeLinks({ secret: 'another-secret-of-enough-length-4567', baseUrl: 'x', emailId: EMAIL, mailDomain: 'x' }).url.split('/').at(-1)!],
    ['a token made for opens', () => signToken(SECRET, 'open', EMAIL)],
    ['a return-path token', () => signToken(SECRET, 'return-path', '1z')],
    ['nothing', () => ''],
  ])('a token with %s does not verify', (_, make) => {
    expect(emailOfUnsubscribeToken(SECRET, make())).toBeUndefined()
  })
})

describe('unsubscribe addresses', () => {
  test('unsubscribe+<token> at any host names the email, in any case', () => {
    expect(emailOfUnsubscribeAddress(SECRET, `unsubscribe+${token}@mst.sender.example.com`)).toBe(EMAIL)
    expect(emailOfUnsubscribeAddress(SECRET, `UNSUBSCRIBE+${token.toUpperCase()}@MST.SENDER.EXAMPLE.COM`)).toBe(EMAIL)
  })

  test.each([
    ['a tampered token', `unsubscribe+${token.replace('0193', '0194')}@mst.sender.example.com`],
    ['another prefix', `bounces+${token}@mst.sender.example.com`],
    ['no host', `unsubscribe+${token}`],
    ['the bare prefix', 'unsubscribe@mst.sender.example.com'],
    ['something after the token', `unsubscribe+${token}x@mst.sender.example.com`],
  ])('%s names nothing', (_, address) => {
    expect(emailOfUnsubscribeAddress(SECRET, address)).toBeUndefined()
  })
})
