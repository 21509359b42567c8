import { describe, expect, test } from 'bun:test'
import { parseFeedbackReport } from './arf.ts'

describe('parseFeedbackReport', () => {
  test('reads the RFC 5965 fields, types and angle brackets taken away', () => {
    const text = [
      'Feedback-Type: Abuse',
      'User-Agent: SomeGenerator/1.0',
      'Version: 1',
      'Original-Mail-From: <bounces+1a33-q3z6cn2tvh5kpw7d@mst.sender.example.com>',
      'Original-Rcpt-To: <User@isp.example>',
      'Original-Rcpt-To: <second@isp.example>',
      'Reporting-MTA: dns; mail.isp.example',
      'Authentication-Results: mail.isp.example;',
      '      spf=pass smtp.mailfrom=mst.sender.example.com',
      '',
    ].join('\r\n')
    expect(parseFeedbackReport(text)).toEqual({
      feedbackType: 'abuse',
      userAgent: 'SomeGenerator/1.0',
      originalRcptTo: 'User@isp.example',
      originalMailFrom: 'bounces+1a33-q3z6cn2tvh5kpw7d@mst.sender.example.com',
      reportingMta: 'mail.isp.example',
    })
  })

  test('fields after a stray blank line are still read', () => {
    expect(parseFeedbackReport('Feedback-Type: not-spam\n\nUser-Agent: Filter/2\n')).toMatchObject({ feedbackType: 'not-spam', userAgent: 'Filter/2' })
  })

  test('missing fields give null, and a missing Feedback-Type gives "unknown"', () => {
    expect(parseFeedbackReport('Version: 1\n')).toEqual({
      feedbackType: 'unknown',
      userAgent: null,
      originalRcptTo: null,
      originalMailFrom: null,
      reportingMta: null,
    })
  })
})
