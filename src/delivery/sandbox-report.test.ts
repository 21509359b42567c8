import { describe, expect, test } from 'bun:test'
import { parseReport } from '../smtp/inbound-report.ts'
import { sandboxComplaint } from './sandbox-report.ts'

describe("the sandbox's complaint", () => {
  test('is a feedback report that the MX listener reads as an abuse complaint about the recipient, naming the return path', async () => {
    const message = Buffer.from('DKIM-Signature: v=1; d=example.com\r\nFrom: ada@example.com\r\nTo: complaint@example.net\r\nMessage-ID: <m1@example.com>\r\n\r\nHello')
    const returnPath = 'bounces+abc@sandbox.mailstead.invalid'
    const { raw, arrival } = sandboxComplaint({ returnPath, recipient: 'complaint@example.net', message, at: Date.parse('2026-11-27T09:00:00Z') })
    expect(arrival.recipients).toEqual([returnPath])
    expect(await parseReport(raw)).toMatchObject({
      kind: 'arf',
      feedbackType: 'abuse',
      originalRcptTo: 'complaint@example.net',
      original: { messageId: '<m1@example.com>', returnPath, fromDomain: 'example.com' },
    })
    expect(raw.toString()).not.toContain('Hello')
  })
})
