import { describe, expect, test } from 'bun:test'
import { messageIdOf, parseDeliveryStatus, statusOf } from './dsn.ts'

const POSTFIX = [
  'Reporting-MTA: dns; mx1.example.net',
  'X-Postfix-Queue-ID: 4VdK7M2QJbz9sWq',
  'X-Postfix-Sender: rfc822; bounces+1a2b-k3m7q2xvnrt4wz6a@mst.sender.example.com',
  '',
  'Final-Recipient: rfc822; nobody@example.net',
  'Original-Recipient: rfc822;other@example.net',
  'Action: FAILED',
  'Status: 5.1.1',
  'Remote-MTA: dns; mailstore.example.net',
  'Diagnostic-Code: smtp; 550 5.1.1 <nobody@example.net>: Recipient address',
  '    rejected: User unknown',
  '',
].join('\r\n')

describe('parseDeliveryStatus', () => {
  test('reads the per-message fields and each recipient, types taken away and action lower-cased', () => {
    expect(parseDeliveryStatus(POSTFIX)).toEqual({
      reportingMta: 'mx1.example.net',
      envelopeSender: 'bounces+1a2b-k3m7q2xvnrt4wz6a@mst.sender.example.com',
      originalMessageId: null,
      recipients: [
        {
          recipient: 'nobody@example.net',
          originalRecipient: 'other@example.net',
          action: 'failed',
          status: '5.1.1',
          diagnostic: '550 5.1.1 <nobody@example.net>: Recipient address rejected: User unknown',
          remoteMta: 'mailstore.example.net',
        },
      ],
    })
  })

  test('a missing field gives null, and Original-Recipient does not stand in for Final-Recipient', () => {
    expect(parseDeliveryStatus('Reporting-MTA: dns; mx\n\nOriginal-Recipient: rfc822; a@example.net\nAction: delayed\n').recipients).toEqual([
      { recipient: null, originalRecipient: 'a@example.net', action: 'delayed', status: null, diagnostic: null, remoteMta: null },
    ])
  })

  test('a report without its per-message group still gives its recipient', () => {
    const status = parseDeliveryStatus('Final-Recipient: rfc822; a@example.net\nAction: failed\nStatus: 5.0.0\n')
    expect(status.reportingMta).toBeNull()
    expect(status.recipients.map((r) => r.recipient)).toEqual(['a@example.net'])
  })

  test('without Action, the status class says what happened', () => {
    const text = 'Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; a@x.example\nStatus: 5.1.1\n\nFinal-Recipient: rfc822; b@x.example\nStatus: 4.2.2\n\nFinal-Recipient: rfc822; c@x.example\n'
    expect(parseDeliveryStatus(text).recipients.map((r) => r.action)).toEqual(['failed', 'delayed', 'unknown'])
  })

  test("Gmail's X-Original-Message-ID names the original", () => {
    expect(parseDeliveryStatus('Reporting-MTA: dns; googlemail.com\nX-Original-Message-ID: <abc@sender.example.com>\n\nAction: failed\n').originalMessageId).toBe(
      '<abc@sender.example.com>',
    )
  })

  test('an empty part names no recipient', () => {
    expect(parseDeliveryStatus('')).toEqual({ reportingMta: null, envelopeSender: null, originalMessageId: null, recipients: [] })
  })
})

describe('statusOf', () => {
  test.each([
    ['5.1.1', '5.1.1'],
    ['5.1.10', '5.1.10'],
    ['4.4.7', '4.4.7'],
    ['2.0.0', '2.0.0'],
    ['5.0.0 (permanent failure)', '5.0.0'],
    ['550', null],
    ['3.1.1', null],
    ['5.1', null],
    ['5.1.1.1', null],
    ['5.1234.1', null],
    ['smtp; 5.1.1', null],
    ['', null],
    [undefined, null],
  ])('%p -> %p', (value, expected) => {
    expect(statusOf(value)).toBe(expected)
  })
})

describe('messageIdOf', () => {
  test.each([
    ['<abc@example.com>', '<abc@example.com>'],
    [' abc@example.com ', '<abc@example.com>'],
    ['not an id', null],
    ['<a@b> <c@d>', null],
    [undefined, null],
  ])('%p -> %p', (value, expected) => {
    expect(messageIdOf(value)).toBe(expected)
  })
})
