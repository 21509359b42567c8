import { describe, expect, test } from 'bun:test'
import { dkimSign } from 'mailauth/lib/dkim/sign'
import { generateDkimKeys } from '../domains/dkim-keys.ts'
import { linksOf, textPartCheck, trackingCheck } from './content-checks.ts'
import { dkimCoverageCheck } from './dkim-coverage.ts'
import { dkimChecks, heldKeyResolver, type HeldKey } from './dkim-verification.ts'
import { readHead } from './raw-message.ts'
import { dateCheck, feedbackIdCheck, isBulk, listUnsubscribeCheck, messageIdCheck, returnPathCheck } from './receiver-checks.ts'

const fields = (head: string) => readHead(Buffer.from(`${head.replace(/\n/g, '\r\n')}\r\n\r\nbody\r\n`)).fields
const statusOf = (c: { status: string }) => c.status
const BULK = 'Precedence: bulk\nDKIM-Signature: v=1; d=example.com; h=from:list-unsubscribe:list-unsubscribe-post; b=x'

describe('header checks a receiver runs', () => {
  test('a Message-ID of the <id@host> form passes; a missing one fails, a malformed one warns', () => {
    expect(statusOf(messageIdCheck(fields('Message-ID: <a.b@example.com>')))).toBe('pass')
    expect(statusOf(messageIdCheck(fields('Subject: x')))).toBe('fail')
    expect(statusOf(messageIdCheck(fields('Message-ID: no-brackets')))).toBe('warn')
  })

  test('a Date must be present and read as a time', () => {
    expect(statusOf(dateCheck(fields('Date: Fri, 27 Nov 2026 09:00:00 +0000')))).toBe('pass')
    expect(dateCheck(fields('Subject: x')).status).toBe('fail')
    expect(dateCheck(fields('Date: yesterday-ish')).detail).toContain('not a date')
  })

  test('mail is bulk when it says Precedence: bulk or list, or carries List-Id', () => {
    expect(isBulk(fields('Precedence: bulk'))).toBe(true)
    expect(isBulk(fields('List-Id: <news.example.com>'))).toBe(true)
    expect(isBulk(fields('Precedence: junk'))).toBe(false)
  })

  test('bulk mail needs a signed https List-Unsubscribe with One-Click; transactional mail is only told about it', () => {
    const good = `${BULK}\nList-Unsubscribe: <https://x.example/u/1>, <mailto:u@x.example>\nList-Unsubscribe-Post: List-Unsubscribe=One-Click`
    expect(listUnsubscribeCheck(fields(good)).status).toBe('pass')
    expect(listUnsubscribeCheck(fields(BULK)).status).toBe('fail')
    expect(listUnsubscribeCheck(fields(`${BULK}\nList-Unsubscribe: <mailto:u@x.example>\nList-Unsubscribe-Post: List-Unsubscribe=One-Click`)).detail).toContain('https')
    expect(listUnsubscribeCheck(fields(`${BULK}\nList-Unsubscribe: <https://x.example/u/1>`)).detail).toContain('One-Click')
    const unsigned = good.replace('h=from:list-unsubscribe:list-unsubscribe-post', 'h=from')
    expect(listUnsubscribeCheck(fields(unsigned)).detail).toContain('signed by DKIM')
    expect(listUnsubscribeCheck(fields('Subject: receipt')).status).toBe('info')
  })

  test('bulk mail without Feedback-ID warns; with it, it passes; transactional mail is only told', () => {
    expect(feedbackIdCheck(fields(BULK)).status).toBe('warn')
    expect(feedbackIdCheck(fields(`${BULK}\nFeedback-ID: c1:p1:mailstead`)).status).toBe('pass')
    expect(feedbackIdCheck(fields('Subject: x')).status).toBe('info')
  })
})

describe('the envelope sender', () => {
  test('an opaque bounce token passes; one that names the recipient or the email fails; before any delivery it is only told', () => {
    expect(returnPathCheck('bounces+1a-kq3xz@rp.example.com', 'bob@example.net', 'em_123').status).toBe('pass')
    expect(returnPathCheck('bounces+bob=example.net@rp.example.com', 'bob@example.net', 'em_123').status).toBe('fail')
    expect(returnPathCheck('bounces+em_123@rp.example.com', 'bob@example.net', 'em_123').status).toBe('fail')
    expect(returnPathCheck(undefined, 'bob@example.net', 'em_123').status).toBe('info')
  })
})

describe('what the DKIM signature covers', () => {
  const sig = (h: string) => `DKIM-Signature: v=1; a=rsa-sha256; d=example.com; s=s1;\n h=${h}; bh=x; b=y`
  const head = 'From: a@example.com\nTo: b@example.net\nSubject: hi\nDate: Fri, 27 Nov 2026 09:00:00 +0000'

  test('From, To, Subject and Date each listed once more than they occur pass', () => {
    expect(dkimCoverageCheck(fields(`${sig('from:from:to:to:subject:subject:date:date')}\n${head}`)).status).toBe('pass')
  })

  test('signed once only: a warning that names what is not over-signed', () => {
    const result = dkimCoverageCheck(fields(`${sig('from:to:subject:date')}\n${head}`))
    expect(result).toMatchObject({ status: 'warn' })
    expect(result.detail).toContain('Not over-signed: from, to, subject, date')
  })

  test('Content-Transfer-Encoding, In-Reply-To and References present but unsigned are named', () => {
    const result = dkimCoverageCheck(fields(`${sig('from:from:to:to:subject:subject:date:date')}\n${head}\nIn-Reply-To: <x@y>\nContent-Transfer-Encoding: 7bit`))
    expect(result.detail).toContain('Present but not signed: content-transfer-encoding, in-reply-to')
  })

  test('no signature, or one that leaves From out, fails', () => {
    expect(dkimCoverageCheck(fields(head)).status).toBe('fail')
    expect(dkimCoverageCheck(fields(`${sig('to:subject')}\n${head}`)).detail).toContain('From is not signed')
  })
})

describe('the text part and tracking', () => {
  const base = 'https://mail.example.com'
  const html = '<p><a href="https://shop.example/a?x=1&amp;y=2">A</a> <a href=\'https://shop.example/b\'>B</a> <a href="mailto:x@y">m</a></p>'

  test('links are the http(s) targets of <a>, entities decoded, each once', () => {
    expect(linksOf(`${html}<a href="https://shop.example/b">again</a>`)).toEqual(['https://shop.example/a?x=1&y=2', 'https://shop.example/b'])
  })

  test('a text part that names every link passes; one that misses some warns and says which', () => {
    expect(textPartCheck({ html, text: 'https://shop.example/a?x=1&y=2 https://shop.example/b', trackingBase: base }).status).toBe('pass')
    const result = textPartCheck({ html, text: 'see https://shop.example/b', trackingBase: base })
    expect(result).toMatchObject({ status: 'warn' })
    expect(result.detail).toContain('https://shop.example/a?x=1&y=2')
  })

  test('a link rewritten for click tracking counts as where it leads', () => {
    const tracked = `<a href="${base}/t/c/tok">A</a>`
    const destinationOf = (url: string) => (url === `${base}/t/c/tok` ? 'https://shop.example/a' : undefined)
    expect(textPartCheck({ html: tracked, text: 'https://shop.example/a', trackingBase: base, destinationOf }).status).toBe('pass')
    expect(textPartCheck({ html: tracked, text: 'nothing', trackingBase: base, destinationOf }).detail).toContain('https://shop.example/a')
  })

  test('HTML without text warns; plain text alone passes; no body fails', () => {
    expect(textPartCheck({ html, text: null, trackingBase: base }).status).toBe('warn')
    expect(textPartCheck({ html: null, text: 'hello', trackingBase: base }).status).toBe('pass')
    expect(textPartCheck({ html: null, text: null, trackingBase: base }).status).toBe('fail')
  })

  test('a pixel or rewritten link fails transactional mail and is only told of bulk mail', () => {
    const tracked = `<a href="${base}/t/c/abc">A</a><img src="${base}/t/o/tok" width="1" height="1" alt="" />`
    expect(trackingCheck({ html: tracked, text: null, trackingBase: base }, false)).toMatchObject({ status: 'fail', detail: expect.stringContaining('1 tracking pixel and 1 rewritten link') })
    expect(trackingCheck({ html: tracked, text: null, trackingBase: base }, true).status).toBe('info')
    expect(trackingCheck({ html: '<img src="https://cdn.example/1x1.gif" width="1" height="1">', text: null, trackingBase: base }, false).status).toBe('fail')
    expect(trackingCheck({ html: '<img src="https://cdn.example/logo.png" width="120" height="10">', text: null, trackingBase: base }, false).status).toBe('pass')
  })
})

describe('DKIM verification against the keys Mailstead holds', async () => {
  const keys = await generateDkimKeys()
  const message = Buffer.from('From: Ada <ada@example.com>\r\nTo: bob@example.net\r\nSubject: hi\r\nDate: Fri, 27 Nov 2026 09:00:00 +0000\r\n\r\nhello\r\n')
  const signed = async (domain: string, selector = 's1') => {
    const { signatures } = await dkimSign(message, { canonicalization: 'relaxed/relaxed', signatureData: [{ signingDomain: domain, selector, privateKey: keys.rsa.privateKeyPem, algorithm: 'rsa-sha256' }] } as never)
    return Buffer.concat([Buffer.from(signatures), message])
  }
  const held = (published: boolean, name = 's1._domainkey.example.com'): HeldKey[] => [{ name, value: `v=DKIM1; k=rsa; p=${keys.rsa.publicKey}`, published }]
  const now = Date.parse('2026-11-27T09:00:00Z')

  test('the resolver answers held keys only, and never for other names or types', async () => {
    const resolve = heldKeyResolver(held(true))
    expect(await resolve('S1._domainkey.example.com.', 'TXT')).toEqual([[`v=DKIM1; k=rsa; p=${keys.rsa.publicKey}`]])
    await expect(resolve('s2._domainkey.example.com', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' })
    await expect(resolve('s1._domainkey.example.com', 'A')).rejects.toMatchObject({ code: 'ENOTFOUND' })
  })

  test('a good signature by a published key passes, and From aligns with it', async () => {
    expect((await dkimChecks(await signed('example.com'), held(true), now)).map((c) => [c.id, c.status])).toEqual([['dkim', 'pass'], ['dkim-alignment', 'pass']])
  })

  test('a good signature by a key DNS does not publish yet warns', async () => {
    expect((await dkimChecks(await signed('example.com'), held(false), now))[0]).toMatchObject({ status: 'warn', detail: expect.stringContaining('not verified in DNS') })
  })

  test("a good signature by a sandbox project's key passes, and says no DNS publishes it", async () => {
    const sandbox = [{ ...held(false, 'sandbox._domainkey.example.com')[0]!, sandbox: true }]
    const [dkim] = await dkimChecks(await signed('example.com', 'sandbox'), sandbox, now)
    expect(dkim).toMatchObject({ status: 'pass', detail: expect.stringContaining('sandbox key') })
  })

  test('a message changed after signing fails', async () => {
    const changed = Buffer.from((await signed('example.com')).toString().replace('hello', 'HELLO'))
    expect((await dkimChecks(changed, held(true), now))[0]).toMatchObject({ status: 'fail', detail: expect.stringContaining('body hash') })
  })

  test('a signature by a key Mailstead does not hold is not checked, and an unaligned d= fails alignment', async () => {
    const checks = await dkimChecks(await signed('other.example.org'), held(true), now)
    expect(checks.map((c) => [c.id, c.status])).toEqual([['dkim', 'info'], ['dkim-alignment', 'fail']])
    expect(checks[0]!.detail).toContain('Not checked')
  })

  test('an unsigned message fails', async () => {
    expect((await dkimChecks(message, held(true), now)).map((c) => c.status)).toEqual(['fail', 'fail'])
  })
})
