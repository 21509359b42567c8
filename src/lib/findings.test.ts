import { describe, expect, test } from 'bun:test'
import { countByStatus, finding, warningSentences, type FindingStatus } from './findings.ts'

const f = (status: FindingStatus, message: string) => finding('x', 'y', status, message)

describe('findings as /health warnings', () => {
  test('failures first, then warnings, then what could not be checked; ok and skipped left out', () => {
    const findings = [f('ok', 'fine'), f('unchecked', 'could not'), f('warning', 'odd'), f('skipped', 'not asked'), f('failed', 'broken')]
    expect(warningSentences(findings)).toEqual(['broken', 'odd', 'could not'])
    expect(countByStatus(findings)).toEqual({ ok: 1, warning: 1, failed: 1, unchecked: 1, skipped: 1 })
  })

  test('past the limit, the last sentence counts the rest', () => {
    const many = Array.from({ length: 25 }, (_, i) => f('failed', `problem ${i}`))
    const sentences = warningSentences(many, 20)
    expect(sentences).toHaveLength(20)
    expect(sentences[18]).toBe('problem 18')
    expect(sentences[19]).toBe('6 more findings: run "mailstead doctor" to see them all.')
  })

  test('a fix is kept only when there is one', () => {
    expect(finding('ptr', '192.0.2.1', 'ok', 'fine')).toEqual({ check: 'ptr', subject: '192.0.2.1', status: 'ok', message: 'fine' })
    expect(finding('ptr', '192.0.2.1', 'failed', 'broken', 'mend it').fix).toBe('mend it')
  })
})
