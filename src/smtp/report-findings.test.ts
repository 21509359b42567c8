import { describe, expect, test } from 'bun:test'
import { isListed, signingDomainsOf } from './feedback-loop.ts'
import { findingsOf, fingerprintOf } from './report-findings.ts'
import type { OriginalMessage } from './report.ts'
import { namesRecipient } from './report-trust.ts'

const original: OriginalMessage = { messageId: '<m@sender.example.com>', returnPath: null, to: ['a@x.example', 'b@x.example'] }
const recipient = (r: Partial<{ recipient: string; originalRecipient: string; action: string; status: string }>) => ({
  recipient: null,
  originalRecipient: null,
  action: 'failed',
  status: '5.1.1',
  diagnostic: null,
  remoteMta: null,
  ...r,
})

describe('findingsOf: whom each finding names', () => {
  test("a DSN names its Final-Recipient and Original-Recipient, never the returned message's To", () => {
    const [finding] = findingsOf({ kind: 'dsn', reportingMta: null, original, recipients: [recipient({ recipient: 'c@y.example', originalRecipient: 'a@x.example' })] })
    expect(finding).toMatchObject({ names: ['c@y.example', 'a@x.example'], effect: 'hard-bounce', detail: '5.1.1' })
  })

  test('a DSN recipient that was delivered, relayed or expanded is no finding', () => {
    const recipients = ['delivered', 'relayed', 'expanded'].map((action) => recipient({ recipient: 'a@x.example', action, status: '2.0.0' }))
    expect(findingsOf({ kind: 'dsn', reportingMta: null, original, recipients })).toEqual([])
  })

  test("an ARF names its Original-Rcpt-To alone, or without one the original's To and Cc", () => {
    const arf = { kind: 'arf' as const, feedbackType: 'abuse', userAgent: null, reportingMta: null, original }
    expect(findingsOf({ ...arf, originalRcptTo: 'b@x.example' })[0]!.names).toEqual(['b@x.example'])
    expect(findingsOf({ ...arf, originalRcptTo: null })[0]!.names).toEqual(['a@x.example', 'b@x.example'])
  })

  test('a plain bounce names the addresses its notice quotes', () => {
    const [finding] = findingsOf({ kind: 'plain-bounce', text: '<a@x.example>: 550 5.1.1 no such user', quoted: ['a@x.example'], original })
    expect(finding).toMatchObject({ names: ['a@x.example'], effect: 'hard-bounce', detail: '5.1.1' })
  })
})

describe('fingerprintOf', () => {
  test('is what the finding is about: delivery, effect and status, whatever report carried it', () => {
    const dsn = findingsOf({ kind: 'dsn', reportingMta: 'one', original, recipients: [recipient({ recipient: 'a@x.example' })] })[0]!
    const plain = findingsOf({ kind: 'plain-bounce', text: '550 5.1.1 <a@x.example> unknown', quoted: ['a@x.example'], original: { ...original, messageId: null } })[0]!
    expect(fingerprintOf(7, dsn)).toBe('delivery:7|hard-bounce|5.1.1')
    expect(fingerprintOf(7, plain)).toBe(fingerprintOf(7, dsn))
    expect(fingerprintOf(8, dsn)).not.toBe(fingerprintOf(7, dsn))
  })
})

describe('namesRecipient', () => {
  test.each([
    ['A@X.example', 'a@x.example', true],
    ['a@x.example', 'a@X.EXAMPLE', true],
    ['xa@x.example', 'a@x.example', false],
    ['a@x.example.org', 'a@x.example', false],
  ])('%s names %s: %p', (named, delivery, expected) => {
    expect(namesRecipient({ names: [named] }, delivery)).toBe(expected)
  })
})

describe('isListed', () => {
  test.each([
    ['fbl.isp.example', true],
    ['mx.fbl.isp.example', true],
    ['notfbl.isp.example', false],
    ['fbl.isp.example.evil.test', false],
    ['isp.example', false],
  ])('%s: %p', (domain, expected) => {
    expect(isListed(domain, ['fbl.isp.example'])).toBe(expected)
  })
})

describe('signingDomainsOf', () => {
  test('the d= of each DKIM-Signature in the header section, folded or not, lower case', () => {
    const raw = 'DKIM-Signature: v=1; a=rsa-sha256; bh=x;\r\n d=FBL.isp.example; s=a; b=y\r\nDKIM-Signature: v=1; d=other.example; b=z\r\nDKIM-Signature: v=1; b=none\r\nSubject: x\r\n\r\nDKIM-Signature: d=body.example\r\n'
    expect(signingDomainsOf(Buffer.from(raw))).toEqual(['fbl.isp.example', 'other.example', ''])
  })
})
