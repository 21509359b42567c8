import { describe, expect, test } from 'bun:test'
import { isListed, signingDomainsOf } from './feedback-loop.ts'
import { findingsOf, fingerprintOf } from './report-findings.ts'
import { isRedacted, namedAddresses, namesRecipient } from './report-names.ts'
import type { OriginalMessage } from './inbound-report.ts'

const original: OriginalMessage = { messageId: '<m@sender.example.com>', returnPath: null, to: ['a@x.example', 'b@x.example'], fromDomain: 'sender.example.com' }
const recipient = (r: Partial<{ recipient: string; originalRecipient: string; action: string; status: string | null; diagnostic: string | null }>) => ({
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
    expect(finding).toMatchObject({ names: ['c@y.example', 'a@x.example'], effect: 'hard-bounce', facts: { status: '5.1.1' } })
  })

  test('a DSN recipient that was delivered, relayed or expanded is no finding', () => {
    const recipients = ['delivered', 'relayed', 'expanded'].map((action) => recipient({ recipient: 'a@x.example', action, status: '2.0.0' }))
    expect(findingsOf({ kind: 'dsn', reportingMta: null, original, recipients })).toEqual([])
  })

  test("an ARF names its Original-Rcpt-To alone, and without one no one: the original's To and Cc say whom it was shown to", () => {
    const arf = { kind: 'arf' as const, feedbackType: 'abuse', userAgent: null, reportingMta: null, original }
    expect(findingsOf({ ...arf, originalRcptTo: 'b@x.example' })[0]!.names).toEqual(['b@x.example'])
    expect(findingsOf({ ...arf, originalRcptTo: null })[0]!.names).toEqual([])
  })

  test('a plain bounce names the addresses its notice quotes', () => {
    const [finding] = findingsOf({ kind: 'plain-bounce', text: '<a@x.example>: 550 5.1.1 no such user', quoted: ['a@x.example'], original })
    expect(finding).toMatchObject({ names: ['a@x.example'], effect: 'hard-bounce', facts: { status: '5.1.1', source: 'plain' } })
  })
})

describe('a DSN failure is classified as the reply it reports', () => {
  const effect = (status: string | null, diagnostic: string | null, action = 'failed') =>
    findingsOf({ kind: 'dsn', reportingMta: 'one', original, recipients: [recipient({ recipient: 'a@x.example', status, diagnostic, action })] })[0]?.effect

  test.each([
    ['5.1.1', null, 'hard-bounce'],
    ['5.2.1', null, 'hard-bounce'],
    ['5.2.2', 'smtp; 552 5.2.2 Mailbox full', 'bounce'],
    ['5.7.1', 'smtp; 550 5.7.1 Service unavailable; client host blocked using Spamhaus', 'bounce'],
    ['5.0.0', 'smtp; 550 5.1.1 <a@x.example>: Recipient address rejected: User unknown', 'hard-bounce'],
    ['5.0.0', 'smtp; 550 No such user here', 'hard-bounce'],
    ['5.0.0', null, 'bounce'],
    [null, null, 'bounce'],
    ['4.4.7', 'smtp; 421 try later', 'delay'],
  ] as const)('failed %p, %p: %p', (status, diagnostic, expected) => {
    expect(effect(status, diagnostic)).toBe(expected)
  })

  test('a delayed recipient is a delay whatever its status says', () => {
    expect(effect('5.1.1', null, 'delayed')).toBe('delay')
  })
})

describe('fingerprintOf', () => {
  const arf = (feedbackType: string) => findingsOf({ kind: 'arf', feedbackType, userAgent: null, reportingMta: null, originalRcptTo: null, original })[0]!
  const dsn = (status: string, action = 'failed') => findingsOf({ kind: 'dsn', reportingMta: 'one', original, recipients: [recipient({ recipient: 'a@x.example', status, action })] })[0]!

  test('is the delivery and the class of the effect, whatever report carried it', () => {
    const plain = findingsOf({ kind: 'plain-bounce', text: '550 5.1.1 <a@x.example> unknown', quoted: ['a@x.example'], original: { ...original, messageId: null } })[0]!
    expect(fingerprintOf(7, dsn('5.1.1'))).toEqual({ key: 'delivery:7|hard-bounce', covers: ['delivery:7|bounce'] })
    expect(fingerprintOf(7, plain)).toEqual(fingerprintOf(7, dsn('5.1.1')))
    expect(fingerprintOf(8, dsn('5.1.1')).key).not.toBe(fingerprintOf(7, dsn('5.1.1')).key)
  })

  test('holds nothing the report writes itself: any feedback type is one complaint, any status one bounce', () => {
    expect(new Set(['abuse', 'abuse1', 'fraud', 'x'.repeat(500)].map((type) => fingerprintOf(7, arf(type)).key))).toEqual(new Set(['delivery:7|complaint']))
    expect(new Set(['5.1.1', '5.1.10', '5.1.3'].map((status) => fingerprintOf(7, dsn(status)).key))).toEqual(new Set(['delivery:7|hard-bounce']))
    expect(new Set(['5.0.0', '5.9.999', '5.2.2', '5.7.1'].map((status) => fingerprintOf(7, dsn(status)).key))).toEqual(new Set(['delivery:7|bounce']))
    expect(new Set(['4.4.7', '4.0.0'].map((status) => fingerprintOf(7, dsn(status, 'delayed')).key))).toEqual(new Set(['delivery:7|delay']))
  })

  test('a soft bounce is the bounce class; a hard one covers it', () => {
    const soft = findingsOf({ kind: 'plain-bounce', text: '552 5.2.2 <a@x.example> mailbox full', quoted: ['a@x.example'], original })[0]!
    expect(soft.effect).toBe('bounce')
    expect(fingerprintOf(7, soft)).toEqual({ key: 'delivery:7|bounce', covers: [] })
    expect(fingerprintOf(7, dsn('5.1.1')).covers).toEqual([fingerprintOf(7, soft).key])
  })
})

describe('namesRecipient', () => {
  test.each([
    ['A@X.example', 'a@x.example', true],
    ['a@x.example', 'a@X.EXAMPLE', true],
    ['xa@x.example', 'a@x.example', false],
    ['a@x.example.org', 'a@x.example', false],
  ])('%s names %s: %p', (named, delivery, expected) => {
    expect(namesRecipient([named], delivery)).toBe(expected)
  })
})

describe('isRedacted: names a feedback loop writes to hide the recipient', () => {
  test.each([
    ['', true],
    ['xxxxx', true],
    ['redacted@', true],
    ['[email removed]', true],
    ['redacted@isp.example', true],
    ['REDACTED@aol.com', true],
    ['xxxxxxxx@hotmail.com', true],
    ['****@isp.example', true],
    ['undisclosed-recipients', true],
    ['bob@isp.example', false],
    ['xx@isp.example', false],
    ['redacted.user@isp.example', false],
    ['maxx@isp.example', false],
  ])('%p: %p', (name, expected) => {
    expect(isRedacted(name)).toBe(expected)
  })

  test('namedAddresses keeps the real addresses only', () => {
    expect(namedAddresses(['redacted@isp.example', 'bob@isp.example', 'xxxxx'])).toEqual(['bob@isp.example'])
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
