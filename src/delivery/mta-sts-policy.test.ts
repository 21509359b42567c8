import { describe, expect, test } from 'bun:test'
import { MAX_AGE_LIMIT, MAX_POLICY_BYTES, mxMatches, parseStsPolicy, parseStsRecord, patternMatches, selectStsRecord } from './mta-sts-policy.ts'

const reasonOf = (parsed: { ok: boolean; reason?: string }) => (parsed.ok ? 'ok' : parsed.reason)

describe('the _mta-sts TXT record', () => {
  test.each([
    ['v=STSv1; id=20160831085700Z;', '20160831085700Z'],
    ['v=STSv1; id=20160831085700Z', '20160831085700Z'],
    ['v=STSv1;id=abc', 'abc'],
    ['v=STSv1 ;\tid=abc ; ', 'abc'],
    ['v=STSv1; id=abc; ext.name_1=x:y/z', 'abc'],
    ['v=STSv1; ext=1; id=abc', 'abc'],
    // Of two ids the first counts (RFC 8461 §3.2).
    ['v=STSv1; id=first; id=second', 'first'],
    [`v=STSv1; id=${'a'.repeat(32)}`, 'a'.repeat(32)],
  ])('%p has the id %p', (text, id) => {
    expect(parseStsRecord(text)).toEqual({ ok: true, value: { id } })
  })

  test.each([
    ['v=STSv1;', 'it has no fields after v=STSv1'],
    ['v=STSv1', 'it has no fields after v=STSv1'],
    ['v=STSv1; ext=1', 'it has no id= field'],
    ['v=STSv1; id=', 'id "" must be 1 to 32 letters and digits'],
    ['v=STSv1; id=a-b', 'id "a-b" must be 1 to 32 letters and digits'],
    [`v=STSv1; id=${'a'.repeat(33)}`, `id "${'a'.repeat(33)}" must be 1 to 32 letters and digits`],
    ['v=STSv1; id=abc; junk', 'field "junk" is not name=value'],
    ['v=STSv1; id=abc;;', 'field "" is not name=value'],
    ['v=STSv1; id = abc', 'field "id = abc" is neither id= nor a well-formed extension'],
    ['v=STSv1 id=abc', '"v=STSv1 id=abc" does not start with v=STSv1;'],
    ['v=stsv1; id=abc', '"v=stsv1; id=abc" does not start with v=STSv1;'],
    ['v=STSv2; id=abc', '"v=STSv2; id=abc" does not start with v=STSv1;'],
  ])('%p is refused: %s', (text, reason) => {
    expect(reasonOf(parseStsRecord(text))).toBe(reason)
  })

  test('of the TXT records at the name, exactly one must start with v=STSv1', () => {
    expect(selectStsRecord([])).toBeUndefined()
    expect(selectStsRecord(['v=spf1 -all', 'google-site-verification=x'])).toBeUndefined()
    expect(selectStsRecord(['v=spf1 -all', 'v=STSv1; id=one'])).toEqual({ ok: true, value: { id: 'one' } })
    expect(reasonOf(selectStsRecord(['v=STSv1; id=one', 'v=STSv1; id=two'])!)).toBe('2 TXT records start with v=STSv1; RFC 8461 allows exactly one')
    expect(reasonOf(selectStsRecord(['v=STSv1; id=one', 'v=STSv1; id=one'])!)).toBe('2 TXT records start with v=STSv1; RFC 8461 allows exactly one')
    expect(reasonOf(selectStsRecord(['v=STSv1; id=bad!'])!)).toBe('the TXT record is malformed: id "bad!" must be 1 to 32 letters and digits')
  })
})

const policy = (...lines: string[]) => lines.join('\n')

describe('the policy file', () => {
  test('the RFC example', () => {
    const text = 'version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.example.net\r\nmx: backupmx.example.com\r\nmax_age: 604800\r\n'
    expect(parseStsPolicy(text)).toEqual({
      ok: true,
      value: { mode: 'enforce', mx: ['mail.example.com', '*.example.net', 'backupmx.example.com'], maxAge: 604800 },
    })
  })

  test('fields in any order, LF or CRLF, spaces after the colon or none, trailing spaces and blank lines', () => {
    const text = 'max_age:86400\n\nmx:   MX1.Example.COM  \r\nmode: testing\t\nversion: STSv1\n\n'
    expect(parseStsPolicy(text)).toEqual({ ok: true, value: { mode: 'testing', mx: ['mx1.example.com'], maxAge: 86400 } })
  })

  test('unknown fields are ignored; a repeated field other than mx counts once, the first; a repeated mx once', () => {
    const text = policy('version: STSv1', 'mode: testing', 'mode: enforce', 'max_age: 60', 'max_age: 999', 'mx: a.example', 'mx: a.example', 'ext_1: anything at all', 'x.y-z: 1')
    expect(parseStsPolicy(text)).toEqual({ ok: true, value: { mode: 'testing', mx: ['a.example'], maxAge: 60 } })
  })

  test('a none policy needs no mx; 0 and 31557600 are the bounds of max_age', () => {
    expect(parseStsPolicy(policy('version: STSv1', 'mode: none', 'max_age: 0'))).toEqual({ ok: true, value: { mode: 'none', mx: [], maxAge: 0 } })
    expect(parseStsPolicy(policy('version: STSv1', 'mode: enforce', 'mx: a.example', `max_age: ${MAX_AGE_LIMIT}`))).toMatchObject({ ok: true, value: { maxAge: MAX_AGE_LIMIT } })
  })

  const base = ['version: STSv1', 'mode: enforce', 'mx: mx.example.com', 'max_age: 86400']
  const replacing = (index: number, line: string) => policy(...base.map((l, i) => (i === index ? line : l)))

  test.each([
    [replacing(0, 'version: STSv2'), 'line 1: version is "STSv2"; only STSv1 is known'],
    [replacing(0, 'version: stsv1'), 'line 1: version is "stsv1"; only STSv1 is known'],
    [replacing(1, 'mode: enforcing'), 'line 2: mode is "enforcing"; it must be enforce, testing or none'],
    [replacing(1, 'mode: Enforce'), 'line 2: mode is "Enforce"; it must be enforce, testing or none'],
    [replacing(1, 'mode:'), 'line 2: mode is ""; it must be enforce, testing or none'],
    [replacing(3, 'max_age: -1'), 'line 4: max_age is "-1"; it must be a whole number of seconds from 0 to 31557600'],
    [replacing(3, 'max_age: 31557601'), 'line 4: max_age is "31557601"; it must be a whole number of seconds from 0 to 31557600'],
    [replacing(3, 'max_age: 1e5'), 'line 4: max_age is "1e5"; it must be a whole number of seconds from 0 to 31557600'],
    [replacing(3, 'max_age: 12345678901'), 'line 4: max_age is "12345678901"; it must be a whole number of seconds from 0 to 31557600'],
    [replacing(3, 'max_age: 86400 s'), 'line 4: max_age is "86400 s"; it must be a whole number of seconds from 0 to 31557600'],
    [replacing(2, 'mx: *.*.example.com'), 'line 3: mx "*.*.example.com" is not a host name or *. and a host name (A-labels, no trailing dot)'],
    [replacing(2, 'mx: mail.*.example.com'), 'line 3: mx "mail.*.example.com" is not a host name or *. and a host name (A-labels, no trailing dot)'],
    [replacing(2, 'mx: mx.example.com.'), 'line 3: mx "mx.example.com." is not a host name or *. and a host name (A-labels, no trailing dot)'],
    [replacing(2, 'mx: -mx.example.com'), 'line 3: mx "-mx.example.com" is not a host name or *. and a host name (A-labels, no trailing dot)'],
    [replacing(2, 'mx: mx.exämple.com'), 'line 3: mx "mx.exämple.com" is not a host name or *. and a host name (A-labels, no trailing dot)'],
    [replacing(2, 'mx: 192.0.2.1:25'), 'line 3: mx "192.0.2.1:25" is not a host name or *. and a host name (A-labels, no trailing dot)'],
    [replacing(2, 'mx: a b'), 'line 3: mx "a b" is not a host name or *. and a host name (A-labels, no trailing dot)'],
    [policy(...base.filter((l) => !l.startsWith('mx'))), 'the policy has no mx field; mode enforce needs at least one'],
    [policy('version: STSv1', 'mode: testing', 'max_age: 1'), 'the policy has no mx field; mode testing needs at least one'],
    [policy(...base.slice(1)), 'the policy has no version field'],
    [policy('mx: a.example'), 'the policy has no version, mode, max_age fields'],
    [replacing(1, 'Mode: enforce'), 'the policy has no mode field (field names are case-sensitive: found Mode)'],
    [replacing(1, 'mode enforce'), 'line 2 is not "name: value": "mode enforce"'],
    [replacing(1, ' mode: enforce'), 'line 2 has no valid field name: " mode: enforce"'],
    [replacing(1, 'mode: enforce\u0000'), 'line 2 holds control characters'],
    ['', 'the policy has no version, mode, max_age fields'],
    ['<html><body>Not found</body></html>', 'line 1 is not "name: value": "<html><body>Not found</body></html>"'],
  ])('%p is refused: %s', (text, reason) => {
    expect(reasonOf(parseStsPolicy(text))).toBe(reason)
  })

  test('a policy larger than 64 KB is refused before it is read', () => {
    const text = policy(...base, `comment: ${'x'.repeat(MAX_POLICY_BYTES)}`)
    expect(reasonOf(parseStsPolicy(text))).toBe('the policy is larger than 65536 bytes')
  })

  test('what comes from the network is quoted short in a reason', () => {
    const reason = reasonOf(parseStsPolicy(`mode: ${'e'.repeat(10_000)}`))!
    expect(reason.length).toBeLessThan(200)
  })
})

describe('matching MX host names', () => {
  test('a name matches itself, whatever the case and a trailing dot', () => {
    expect(patternMatches('mx.example.com', 'mx.example.com')).toBe(true)
    expect(patternMatches('mx.example.com', 'MX.Example.Com.')).toBe(true)
    expect(patternMatches('mx.example.com', 'mx2.example.com')).toBe(false)
    expect(patternMatches('mx.example.com', 'x.mx.example.com')).toBe(false)
    expect(patternMatches('mx.example.com', 'example.com')).toBe(false)
  })

  test('a wildcard matches exactly one leftmost label', () => {
    expect(patternMatches('*.example.com', 'mx1.example.com')).toBe(true)
    expect(patternMatches('*.example.com', 'MX1.EXAMPLE.COM.')).toBe(true)
    expect(patternMatches('*.example.com', 'example.com')).toBe(false)
    expect(patternMatches('*.example.com', 'a.b.example.com')).toBe(false)
    expect(patternMatches('*.example.com', '.example.com')).toBe(false)
    expect(patternMatches('*.example.com', 'mx1.example.com.evil.test')).toBe(false)
    expect(patternMatches('*.example.com', 'mx1-example.com')).toBe(false)
  })

  test('a policy matches when any of its patterns does', () => {
    const parsed = parseStsPolicy(policy('version: STSv1', 'mode: enforce', 'max_age: 1', 'mx: mail.example.com', 'mx: *.example.net'))
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(mxMatches(parsed.value, 'mail.example.com')).toBe(true)
    expect(mxMatches(parsed.value, 'eu.example.net')).toBe(true)
    expect(mxMatches(parsed.value, 'example.net')).toBe(false)
    expect(mxMatches(parsed.value, 'attacker.example.org')).toBe(false)
    expect(mxMatches({ mx: [] }, 'mail.example.com')).toBe(false)
  })
})
