import { describe, expect, test } from 'bun:test'
import type { Verdict } from './records.ts'
import { nextState, recordStatus, type DomainState } from './status.ts'

const HOUR = 3_600_000
const GRACE = 72 * HOUR
const created = 1_000_000_000_000
const ok: Verdict = { result: 'ok', found: 'x' }
const wrong: Verdict = { result: 'wrong', found: 'y', problem: 'not ours' }
const missing: Verdict = { result: 'missing', found: null, problem: 'nothing' }
const unavailable: Verdict = { result: 'unavailable', found: null, problem: 'SERVFAIL' }

const domain = (state: Partial<DomainState>): DomainState => ({
  status: 'NOT_STARTED',
  created_at: created,
  verified_at: null,
  failing_since: null,
  ...state,
})

describe('nextState', () => {
  test('all required records right makes a domain SUCCESS and remembers when', () => {
    expect(nextState(domain({}), [ok, ok, ok], created + HOUR, GRACE)).toEqual({ status: 'SUCCESS', verified_at: created + HOUR, failing_since: null })
  })

  test('a record still wrong within the grace keeps a new domain PENDING', () => {
    expect(nextState(domain({}), [ok, missing, ok], created + 71 * HOUR, GRACE).status).toBe('PENDING')
  })

  test('a record still wrong after the grace makes a new domain FAILED', () => {
    expect(nextState(domain({ status: 'PENDING' }), [ok, wrong, ok], created + 72 * HOUR, GRACE).status).toBe('FAILED')
  })

  test('a resolver timeout or SERVFAIL makes it TEMPORARY_FAILURE, whatever else was found', () => {
    expect(nextState(domain({ status: 'PENDING' }), [unavailable, ok, wrong], created + HOUR, GRACE).status).toBe('TEMPORARY_FAILURE')
    expect(nextState(domain({ status: 'SUCCESS', verified_at: created }), [ok, unavailable, ok], created + HOUR, GRACE)).toEqual({
      status: 'TEMPORARY_FAILURE',
      verified_at: created,
      failing_since: null,
    })
  })

  test('a later good check moves a TEMPORARY_FAILURE domain on', () => {
    expect(nextState(domain({ status: 'TEMPORARY_FAILURE' }), [ok, ok, ok], created + HOUR, GRACE).status).toBe('SUCCESS')
    expect(nextState(domain({ status: 'TEMPORARY_FAILURE' }), [missing, ok, ok], created + HOUR, GRACE).status).toBe('PENDING')
  })

  test('a verified domain whose records break goes to TEMPORARY_FAILURE, then FAILED after the grace', () => {
    const verified = domain({ status: 'SUCCESS', verified_at: created })
    const broke = created + 100 * HOUR
    const first = nextState(verified, [wrong, ok, ok], broke, GRACE)
    expect(first).toEqual({ status: 'TEMPORARY_FAILURE', verified_at: created, failing_since: broke })
    const later = nextState({ ...verified, ...first }, [wrong, ok, ok], broke + 71 * HOUR, GRACE)
    expect(later.status).toBe('TEMPORARY_FAILURE')
    expect(nextState({ ...verified, ...later }, [wrong, ok, ok], broke + 72 * HOUR, GRACE).status).toBe('FAILED')
  })

  test('a fixed domain is SUCCESS again and its failing clock is reset', () => {
    const failing = domain({ status: 'FAILED', verified_at: created, failing_since: created + HOUR })
    expect(nextState(failing, [ok, ok, ok], created + 200 * HOUR, GRACE)).toEqual({ status: 'SUCCESS', verified_at: created, failing_since: null })
  })
})

describe('recordStatus', () => {
  test.each([
    [ok, 'PENDING', undefined, 'SUCCESS'],
    [missing, 'PENDING', undefined, 'PENDING'],
    [wrong, 'TEMPORARY_FAILURE', 'SUCCESS', 'PENDING'],
    [wrong, 'FAILED', 'PENDING', 'FAILED'],
    [unavailable, 'TEMPORARY_FAILURE', 'SUCCESS', 'SUCCESS'],
    [unavailable, 'TEMPORARY_FAILURE', undefined, 'PENDING'],
  ] as const)('%o for a %s domain (previously %s) is %s', (verdict, status, previous, expected) => {
    expect(recordStatus(verdict, status, previous)).toBe(expected)
  })
})
