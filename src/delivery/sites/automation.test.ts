import { describe, expect, test } from 'bun:test'
import { parseReply } from '../classify.ts'
import { matchAutomation } from './automation.ts'
import { DEFAULT_AUTOMATION, SITE_RULES } from './rules.ts'

const reply = (line: string) => parseReply(Number(line.slice(0, 3)), line)
const rulesOf = (site?: string) => [...(SITE_RULES.find((r) => r.name === site)?.automation ?? []), ...DEFAULT_AUTOMATION]

describe('replies that mean "slow down" or "you are blocked"', () => {
  test.each([
    ['gmail', '421-4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address.', 'throttle'],
    [undefined, '421 4.7.28 rate limited, try again later', 'throttle'],
    [undefined, '451 4.7.0 Too many messages from your IP, slow down', 'throttle'],
    [undefined, '421 Too many connections from your host', 'throttle'],
    ['yahoo', '421 4.7.0 [TSS04] Messages from 203.0.113.5 temporarily deferred due to unexpected volume or user complaints', 'throttle'],
    ['yahoo', '553 5.7.1 [BL21] Connections will not be accepted from 203.0.113.5, because the ip is in Spamhaus\'s list', 'suspend'],
    ['microsoft', '451 4.7.650 The mail server [203.0.113.5] has been temporarily rate limited due to IP reputation.', 'throttle'],
    ['microsoft-365', '421 4.7.66 Server busy. Please try again later from [203.0.113.5]', 'throttle'],
    ['microsoft', "550 5.7.1 Unfortunately, messages from [203.0.113.5] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).", 'suspend'],
    [undefined, '554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org', 'suspend'],
    [undefined, '550 5.7.1 Your IP address is blocked', 'suspend'],
    ['orange', '421 mwinf5c10 ME Trop de connexions, veuillez verifier votre configuration. [OFR_999]', 'throttle'],
  ])('%s: %s -> %s', (site, line, action) => {
    expect(matchAutomation(reply(line), rulesOf(site))?.action).toBe(action as never)
  })

  test.each([
    '451 4.7.1 Greylisted, please try again later',
    '450-4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
    '550 5.7.1 Recipient address rejected: Access denied',
    '550 5.1.1 The email account that you tried to reach does not exist.',
    '452 4.2.2 Mailbox full',
    '250 2.0.0 OK',
  ])('%s changes nothing about the site', (line) => {
    expect(matchAutomation(reply(line), rulesOf('gmail'))).toBeUndefined()
  })
})
