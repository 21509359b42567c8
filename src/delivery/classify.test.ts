import { describe, expect, test } from 'bun:test'
import { classifyReply, parseReply } from './classify.ts'

const reply = (line: string) => parseReply(Number(line.slice(0, 3)), line)

describe('classifyReply', () => {
  test.each([
    ['250 2.0.0 OK queued as 12345', 'delivered', undefined, undefined],
    ['250 Ok', 'delivered', undefined, undefined],
    ['451 4.7.1 Greylisted, please try again later', 'deferred', 'temporary', undefined],
    ['421 Too many connections', 'deferred', 'temporary', undefined],
    ['452 4.2.2 Mailbox full', 'deferred', 'temporary', undefined],
    ['550 5.1.1 <x@example.com>: Recipient address rejected: User unknown', 'bounced', 'recipient', true],
    ['550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', 'bounced', 'domain', true],
    ['550 5.2.1 The email account that you tried to reach is disabled', 'bounced', 'mailbox-disabled', true],
    ['552 5.2.2 The email account that you tried to reach is over quota', 'bounced', 'mailbox-full', false],
    ['550 5.7.1 Message rejected as spam', 'bounced', 'policy', false],
    ['554 5.7.26 Unauthenticated email is not accepted from this domain', 'bounced', 'policy', false],
    ['552 5.3.4 Message size exceeds fixed limit', 'bounced', 'message-too-large', false],
    ['550 No such user here', 'bounced', 'recipient', true],
    ['550 Requested action not taken: mailbox unavailable', 'bounced', 'recipient', true],
    ['554 Your IP is on a blocklist', 'bounced', 'policy', false],
    ['550 Please try again later', 'deferred', 'temporary', undefined],
    ['553 Something else went wrong', 'bounced', 'other', false],
    ['500 5.3.0 <x@example.com>: Other mail system problem', 'bounced', 'mail-system', true],
    ['550 5.0.0 <x@example.com>: Recipient address rejected: User unknown in local recipient table', 'bounced', 'recipient', true],
    ['554 5.0.0 Service unavailable', 'bounced', 'other', false],
    ['550 5.5.0 Requested action not taken: mailbox unavailable', 'bounced', 'recipient', true],
    ['550 5.0.0 Please try again later', 'bounced', 'other', false],
  ])('%s -> %s', (line, kind, category, hard) => {
    const outcome = classifyReply(reply(line))
    expect(outcome.kind).toBe(kind as never)
    if (category) expect(outcome).toMatchObject({ category })
    if (hard !== undefined) expect(outcome).toMatchObject({ hard })
  })

  test('the enhanced code decides over the reply code and the text', () => {
    expect(classifyReply(reply('550 4.2.1 user unknown, try later')).kind).toBe('deferred')
    expect(classifyReply(reply('450 5.1.1 odd server')).kind).toBe('bounced')
  })

  test('parseReply reads multi-line replies', () => {
    expect(parseReply(550, '550-5.1.1 The email account does not exist.\n550 5.1.1 Please try double-checking')).toEqual({
      code: 550,
      enhanced: '5.1.1',
      text: '5.1.1 The email account does not exist.\n5.1.1 Please try double-checking',
    })
  })
})
