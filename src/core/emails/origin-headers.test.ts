import { describe, expect, test } from 'bun:test'
import { leaksOrigin } from './origin-headers.ts'

const field = (name: string, value: string) => ({ name, label: name, value, start: 0, end: 0 })

describe('the header fields that show where a relayed message was written', () => {
  test.each([
    ['x-originating-ip', '[10.0.3.7]', true],
    ['x-forwarded-for', '203.0.113.9', true],
    ['x-php-originating-script', '1000:mailer.php', true],
    ['received', 'from app-7.internal (app-7.internal [10.1.2.3]) by relay.internal with ESMTP', true],
    ['received', 'from localhost (localhost [127.0.0.1]) by app', true],
    ['received', 'from app (unknown [IPv6:fd00::12]) by relay', true],
    ['received', 'from mail.example.org (mail.example.org [93.184.215.14]) by relay; Fri, 27 Nov 2026 09:00:00 +0000', false],
    ['received', 'by app.example.org (Postfix, from userid 1000) id 4Xyz; Fri, 27 Nov 2026 09:00:00 +0000', false],
    ['x-mailer', 'Acme 2.1', false],
    ['subject', 'from 10.0.0.1', false],
  ])('%s: %s -> %p', (name, value, leaks) => {
    expect(leaksOrigin(field(name, value))).toBe(leaks)
  })
})
