import { describe, expect, test } from 'bun:test'
import { clickOfToken, trackHtml } from './links.ts'
import { carriesSecret } from './secret-links.ts'

describe('links that carry a secret', () => {
  test.each([
    'https://app.example.com/account?token=abc123',
    'https://app.example.com/?reset_key=1',
    'https://app.example.com/?resetToken=1',
    'https://app.example.com/verify?email=a%40b.example&code=123456',
    'https://app.example.com/login#access_token=xyz',
    'https://app.example.com/s3?X-Amz-Signature=ff&X-Amz-Credential=aa',
    'https://app.example.com/?otp=1',
    'https://app.example.com/?apiKey=1',
    'https://app.example.com/reset-password/9f8e7d6c',
    'https://app.example.com/auth/magic-link/abc',
    'https://app.example.com/invitations/accept?id=7',
    'https://app.example.com/confirm/abc',
  ])('%s carries one', (url) => {
    expect(carriesSecret(url)).toBe(true)
  })

  test.each([
    'https://shop.example.com/order?id=7&ref=mail',
    'https://shop.example.com/?utm_source=news&utm_medium=email&utm_campaign=spring&utm_content=design',
    'https://example.com/design/tokens-of-appreciation-sale',
    'https://example.com/#top',
    'https://help.example.com/',
  ])('%s carries none', (url) => {
    expect(carriesSecret(url)).toBe(false)
  })
})

const SECRET = 'a-server-secret-of-enough-length-123'
const track = (html: string) => trackHtml(html, { emailId: 'e1', baseUrl: 'https://mail.example.org', secret: SECRET, opens: false, clicks: true })
const followed = (html: string) => [...html.matchAll(/\/t\/c\/([^"'\s>]+)/g)].map((m) => clickOfToken(SECRET, m[1]!)!.url)

describe('click tracking and secret links', () => {
  test('a reset link is left as written; an ordinary link beside it is tracked', () => {
    const html = track('<a href="https://app.example.com/reset?token=s3cr3t">Reset</a> <a href="https://app.example.com/help">Help</a>')
    expect(html).toContain('href="https://app.example.com/reset?token=s3cr3t"')
    expect(followed(html)).toEqual(['https://app.example.com/help'])
  })

  test('data-track asks for a secret link to be tracked all the same', () => {
    expect(followed(track('<a data-track href="https://app.example.com/?code=1">Go</a>'))).toEqual(['https://app.example.com/?code=1'])
  })

  test('data-no-track leaves any link as written, wherever the attribute stands', () => {
    const html = track('<a href="https://example.com/a" data-no-track>A</a><a data-no-track="" href="https://example.com/b">B</a>')
    expect(followed(html)).toEqual([])
    expect(html).toContain('href="https://example.com/a"')
  })
})
