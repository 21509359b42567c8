import { describe, expect, test } from 'bun:test'
import { eventLines, fieldWords, MOVING_POLL_MS, pollEvery, WAITING_POLL_MS } from './event-words.ts'

describe('eventLines', () => {
  test("a delivery's fields get labels a person reads, in a fixed order, with the TLS and MTA-STS facts in words", () => {
    const lines = eventLines({
      response: '250 2.0.0 Ok: queued as 1234',
      enhancedCode: '2.0.0',
      smtpCode: 250,
      mx: 'mx.example.net',
      recipient: 'jane@example.net',
      attempt: 1,
      ip: '127.0.0.2',
      tls: { version: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384', verified: false },
      mtaSts: null,
    })
    expect(lines).toEqual([
      { label: 'Recipient', text: 'jane@example.net' },
      { label: 'Attempt', text: '1' },
      { label: 'Remote server', text: 'mx.example.net' },
      { label: 'IP address', text: '127.0.0.2' },
      { label: 'Encryption', text: 'TLS 1.3 (TLS_AES_256_GCM_SHA384), certificate not verified' },
      { label: 'MTA-STS policy', text: 'None published' },
      { label: 'SMTP code', text: '250' },
      { label: 'Enhanced status', text: '2.0.0' },
      { label: 'Response', text: '250 2.0.0 Ok: queued as 1234' },
    ])
  })

  test('times are instants to show in the reader’s zone, never ISO text; categories and bounces in words', () => {
    expect(eventLines({ category: 'mailbox_full', nextAttemptAt: '2026-01-02T03:04:05.000Z' })).toEqual([
      { label: 'Reason', text: 'mailbox full' },
      { label: 'Next attempt', time: '2026-01-02T03:04:05.000Z' },
    ])
    expect(eventLines({ hard: true })).toEqual([{ label: 'Bounce type', text: 'Hard: the address does not take mail' }])
    expect(eventLines({ scheduledAt: '2030-01-02T03:04:00.000Z' })).toEqual([{ label: 'Scheduled for', time: '2030-01-02T03:04:00.000Z' }])
  })

  test('a field it does not know is named in words; empty fields and no data say nothing', () => {
    expect(eventLines({ someNewThing: 'x', blank: '', nothing: null })).toEqual([{ label: 'Some new thing', text: 'x' }])
    expect(eventLines(null)).toEqual([])
    expect(eventLines('text')).toEqual([])
    expect(fieldWords('next_attempt')).toBe('Next attempt')
  })

  test("a report's status and diagnostic share labels with an attempt's: the first is kept", () => {
    expect(eventLines({ status: '5.1.1', diagnostic: 'smtp; 550 no such user', remoteMta: 'mx.example.net', source: 'dsn' }).map((l) => l.label)).toEqual([
      'Remote server',
      'Enhanced status',
      'Response',
      'Reported in',
    ])
  })
})

describe('pollEvery', () => {
  test('quick while mail is on its way, slow while it waits, never once all is settled', () => {
    expect(pollEvery(['DELIVERED', 'QUEUED'])).toBe(MOVING_POLL_MS)
    expect(pollEvery(['SENT'])).toBe(MOVING_POLL_MS)
    expect(pollEvery(['DELIVERY_DELAYED', 'DELIVERED'])).toBe(WAITING_POLL_MS)
    expect(pollEvery(['SCHEDULED'])).toBe(WAITING_POLL_MS)
    expect(pollEvery(['DELIVERED', 'BOUNCED', 'OPENED', 'CANCELLED'])).toBe(false)
    expect(pollEvery([])).toBe(false)
  })
})
