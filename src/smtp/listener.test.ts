import { describe, expect, test } from 'bun:test'
import type { SMTPServerSession } from 'smtp-server'
import { connectionLimit } from './listener.ts'

const sessionFrom = (remoteAddress: string) => ({ remoteAddress }) as SMTPServerSession

/** onConnect's answer: undefined when let in, else the SMTP code. */
const connect = (limit: ReturnType<typeof connectionLimit>, session: SMTPServerSession) => {
  let answer: number | undefined
  limit.onConnect(session, (error) => (answer = (error as { responseCode?: number } | undefined)?.responseCode))
  return answer
}

describe('the per-address connection limit', () => {
  test('refuses a connection over the limit with 421, and lets one in again when another closes', () => {
    const limit = connectionLimit(2)
    const [a, b, c] = [sessionFrom('192.0.2.1'), sessionFrom('192.0.2.1'), sessionFrom('192.0.2.1')]
    expect([connect(limit, a), connect(limit, b), connect(limit, c)]).toEqual([undefined, undefined, 421])
    expect(connect(limit, sessionFrom('192.0.2.2'))).toBeUndefined()
    limit.onClose(a)
    expect(connect(limit, sessionFrom('192.0.2.1'))).toBeUndefined()
  })

  test('a refused connection that closes (smtp-server calls onClose for it too) frees no place', () => {
    const limit = connectionLimit(1)
    const held = sessionFrom('192.0.2.1')
    expect(connect(limit, held)).toBeUndefined()
    for (let i = 0; i < 3; i++) {
      const refused = sessionFrom('192.0.2.1')
      expect(connect(limit, refused)).toBe(421)
      limit.onClose(refused)
    }
    expect(connect(limit, sessionFrom('192.0.2.1'))).toBe(421)
  })

  test('a session closed twice frees its place once', () => {
    const limit = connectionLimit(2)
    const [a, b] = [sessionFrom('192.0.2.1'), sessionFrom('192.0.2.1')]
    connect(limit, a)
    connect(limit, b)
    limit.onClose(a)
    limit.onClose(a)
    expect(connect(limit, sessionFrom('192.0.2.1'))).toBeUndefined()
    expect(connect(limit, sessionFrom('192.0.2.1'))).toBe(421)
  })

  test('counts an IPv6 client by its /64, and an IPv4 client however its address is written', () => {
    const limit = connectionLimit(2)
    expect([connect(limit, sessionFrom('2001:db8:1:2::1')), connect(limit, sessionFrom('2001:db8:1:2::2'))]).toEqual([undefined, undefined])
    expect(connect(limit, sessionFrom('2001:db8:1:2:ffff:ffff:ffff:ffff'))).toBe(421)
    expect(connect(limit, sessionFrom('2001:db8:1:3::1'))).toBeUndefined()
    expect([connect(limit, sessionFrom('192.0.2.7')), connect(limit, sessionFrom('::ffff:192.0.2.7'))]).toEqual([undefined, undefined])
    expect(connect(limit, sessionFrom('::ffff:c000:207'))).toBe(421)
  })
})
