import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseReport, type InboundReport, type OriginalMessage, type RecipientStatus } from './inbound-report.ts'

const fixture = (name: string) => readFileSync(join(import.meta.dir, '../../test/fixtures/reports', name))

const returnPath = (token: string) => `bounces+${token}@mst.sender.example.com`
const messageId = (uuid: string) => `<${uuid}@sender.example.com>`
const original = (id: string, token: string | null, to: string[]): OriginalMessage => ({ messageId: messageId(id), returnPath: token && returnPath(token), to, fromDomain: 'sender.example.com' })
const recipient = (recipient: string, action: string, status: string, diagnostic: string, remoteMta: string | null, originalRecipient: string | null = null): RecipientStatus => ({
  recipient,
  originalRecipient,
  action,
  status,
  diagnostic,
  remoteMta,
})

const EXPECTED: Array<[string, InboundReport]> = [
  ['postfix-bounce.eml', {
    kind: 'dsn',
    reportingMta: 'mx1.example.net',
    recipients: [recipient('nobody@example.net', 'failed', '5.1.1', '550 5.1.1 <nobody@example.net>: Recipient address rejected: User unknown in virtual mailbox table', 'mailstore.example.net', 'nobody@example.net')],
    original: original('0193a1b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b', '1a2b-k3m7q2xvnrt4wz6a', ['nobody@example.net']),
  }],
  ['exim-bounce.eml', {
    kind: 'dsn',
    reportingMta: 'mx.exim.example.org',
    recipients: [recipient('jane.doe@exim.example.org', 'failed', '5.0.0', '550 5.1.1 <jane.doe@exim.example.org>: No such user here', 'mail.exim.example.org')],
    original: original('0193a1b2-8d1e-7f20-9b31-2c3d4e5f6a7b', '1a2c-p5w2dr7nhq3xbk4m', ['jane.doe@exim.example.org']),
  }],
  ['sendmail-bounce.eml', {
    kind: 'dsn',
    reportingMta: 'smtp.sendmail.example.edu',
    recipients: [recipient('prof.smith@sendmail.example.edu', 'failed', '5.1.1', '550 5.1.1 <prof.smith@sendmail.example.edu>... User unknown', 'mailhost.sendmail.example.edu')],
    original: original('0193a1b2-9e2f-7031-8c42-3d4e5f6a7b8c', '1a2d-f6t3zm2kcv7wqn5e', ['prof.smith@sendmail.example.edu']),
  }],
  ['exchange-bounce.eml', {
    kind: 'dsn',
    reportingMta: 'AM0PR01MB1234.eurprd01.prod.exchangelabs.com',
    recipients: [recipient('j.smith@contoso.example', 'failed', '5.1.10', '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', null)],
    original: original('0193a1b2-af30-7142-9d53-4e5f6a7b8c9d', '1a2e-h4q7rx2bmw6ztc3n', ['j.smith@contoso.example']),
  }],
  ['gmail-bounce.eml', {
    kind: 'dsn',
    reportingMta: 'googlemail.com',
    recipients: [
      recipient(
        'no.such.person@gmail.com',
        'failed',
        '5.1.1',
        "550-5.1.1 The email account that you tried to reach does not exist. Please try 550-5.1.1 double-checking the recipient's email address for typos or 550-5.1.1 unnecessary spaces. Learn more at 550 5.1.1 https://support.google.com/mail/?p=NoSuchUser d9443c01a7336-1f0a2b3c4d5si1234567ad.42 - gsmtp",
        'gmail-smtp-in.l.google.com. 142.250.102.27',
      ),
    ],
    original: original('0193a1b2-b041-7253-8e64-5f6a7b8c9dae', null, ['no.such.person@gmail.com']),
  }],
  ['delayed.eml', {
    kind: 'dsn',
    reportingMta: 'mx2.example.org',
    recipients: [recipient('slow@example.org', 'delayed', '4.4.7', 'connect to mail.example.org[198.51.100.33]:25: Connection timed out', null, 'slow@example.org')],
    original: original('0193a1b2-c152-7364-9f75-6a7b8c9daebf', '1a30-t2n6vk4pxq7mhb5r', ['slow@example.org']),
  }],
  ['delivered.eml', {
    kind: 'dsn',
    reportingMta: 'mx3.example.com',
    recipients: [recipient('happy@example.com', 'delivered', '2.0.0', '250 2.0.0 Ok: queued as 4VkD6x2Tn9z1xYz', 'mailstore.example.com', 'happy@example.com')],
    original: original('0193a1b2-d263-7475-8a86-7b8c9daebfc0', '1a31-w7c3jd5qnz2rft6k', ['happy@example.com']),
  }],
  ['multi-recipient.eml', {
    kind: 'dsn',
    reportingMta: 'relay.multi.example',
    recipients: [
      recipient('alice@multi.example', 'failed', '5.2.2', '552 5.2.2 <alice@multi.example>... Mailbox full', 'store.multi.example'),
      recipient('Bob@Other.example', 'delayed', '4.4.1', '421 4.4.1 Connection timed out', 'mx.other.example'),
    ],
    original: original('0193a1b2-e374-7586-9b97-8c9daebfc0d1', '1a32-b5m2xh7kwr4nqv3t', ['alice@multi.example', 'bob@other.example']),
  }],
  ['utf8-bounce.eml', {
    kind: 'dsn',
    reportingMta: 'mx.exämple.example',
    recipients: [recipient('jörg@exämple.example', 'failed', '5.1.1', '550 5.1.1 <jörg@exämple.example>: Empfänger unbekannt', 'boîte.exämple.example', 'jörg@exämple.example')],
    original: original('0193a1b2-27b8-79ca-9fdb-c0d1e2f30415', '1a35-c4v7qm2zkt5wnr6h', ['jörg@exämple.example']),
  }],
  ['arf-abuse.eml', {
    kind: 'arf',
    feedbackType: 'abuse',
    userAgent: 'SomeGenerator/1.0',
    originalRcptTo: 'user@isp.example',
    reportingMta: 'mail.isp.example',
    original: original('0193a1b2-f485-7697-8ca8-9daebfc0d1e2', '1a33-q3z6cn2tvh5kpw7d', ['user@isp.example']),
  }],
  ['qmail-plain.eml', {
    kind: 'plain-bounce',
    text: [
      'Hi. This is the qmail-send program at mx.qmail.example.org.',
      "I'm afraid I wasn't able to deliver your message to the following addresses.",
      "This is a permanent error; I've given up. Sorry it didn't work out.",
      '',
      '<ghost@qmail.example.org>:',
      'Sorry, no mailbox here by that name. (#5.1.1)',
    ].join('\n'),
    quoted: ['ghost@qmail.example.org'],
    original: original('0193a1b2-0596-77a8-9db9-aebfc0d1e2f3', '1a34-n7k2wb4rxm6qht3z', ['ghost@qmail.example.org']),
  }],
  ['no-status-part.eml', { kind: 'other', reason: 'a delivery-status report without a message/delivery-status part' }],
  ['ordinary.eml', { kind: 'other', reason: 'neither a multipart/report nor a bounce' }],
]

describe('parseReport', () => {
  test.each(EXPECTED)('%s is read as expected', async (name, expected) => {
    expect(await parseReport(fixture(name))).toEqual(expected)
  })

  test.each(EXPECTED)('%s reads the same with bare LF line endings', async (name, expected) => {
    const lf = Buffer.from(fixture(name).toString('latin1').replace(/\r\n/g, '\n'), 'latin1')
    expect(await parseReport(lf)).toEqual(expected)
  })

  test('the fixtures have CRLF line endings, as mail does', () => {
    for (const [name] of EXPECTED) expect(fixture(name).toString('latin1')).not.toMatch(/(^|[^\r])\n/)
  })
})
