import { describe, expect, test } from 'bun:test'
import { createClaimPacing } from './claim-pacing.ts'

const EMPTY = '{"domains":[],"projects":[]}'

function pacingAt(pauseMs = 50) {
  const time = { now: 1000 }
  const woken = { count: 0 }
  const pacing = createClaimPacing({ pauseMs, wake: () => woken.count++, now: () => time.now })
  return { pacing, time, woken }
}

describe('when the delivery loop claims again', () => {
  test('the first claim goes; after one that found rows, the next goes too', () => {
    const { pacing } = pacingAt()
    expect(pacing.mayClaim(EMPTY, [])).toBe(true)
    pacing.claimed(EMPTY, 5)
    expect(pacing.mayClaim(EMPTY, [])).toBe(true)
  })

  test('after a claim found nothing, none goes under the same limits until mail is queued or time passes', () => {
    const { pacing, time } = pacingAt()
    pacing.mayClaim(EMPTY, [])
    pacing.claimed(EMPTY, 0)
    time.now += 1000
    expect(pacing.mayClaim(EMPTY, [])).toBe(false)
    // Other limits (a domain no longer skipped) may find rows.
    expect(pacing.mayClaim('{"domains":["a.example"],"projects":[]}', [])).toBe(true)
    pacing.claimed(EMPTY, 0)
    pacing.fresh()
    expect(pacing.mayClaim(EMPTY, [])).toBe(true)
  })

  test('queued mail is claimed at most once a pause: a claim asked sooner comes when the pause is over', async () => {
    const { pacing, time, woken } = pacingAt(20)
    pacing.mayClaim(EMPTY, [])
    pacing.claimed(EMPTY, 0)
    pacing.queued(new Set([7]))
    time.now += 5
    expect(pacing.mayClaim(EMPTY, [])).toBe(false)
    // Asked again within the pause: still one wake-up to come.
    expect(pacing.mayClaim(EMPTY, [])).toBe(false)
    await Bun.sleep(60)
    expect(woken.count).toBe(1)
    time.now += 20
    expect(pacing.mayClaim(EMPTY, [])).toBe(true)
    // The claim began: what is queued from here on is news again.
    pacing.claimed(EMPTY, 0)
    expect(pacing.mayClaim(EMPTY, [])).toBe(false)
  })

  test('mail queued only for projects at their rate is not looked for; mail of a caller that did not say whose is', () => {
    const { pacing, time } = pacingAt()
    pacing.mayClaim(EMPTY, [])
    pacing.claimed(EMPTY, 0)
    time.now += 100
    pacing.queued(new Set([7]))
    expect(pacing.mayClaim(EMPTY, [7])).toBe(false)
    pacing.queued(new Set([8]))
    expect(pacing.mayClaim(EMPTY, [7])).toBe(true)
    pacing.claimed(EMPTY, 0)
    time.now += 100
    pacing.queued()
    expect(pacing.mayClaim(EMPTY, [7])).toBe(true)
  })

  test('a stop drops the claim waiting for its pause', async () => {
    const { pacing, woken } = pacingAt(20)
    pacing.mayClaim(EMPTY, [])
    pacing.claimed(EMPTY, 0)
    pacing.queued(new Set([1]))
    expect(pacing.mayClaim(EMPTY, [])).toBe(false)
    pacing.stop()
    await Bun.sleep(50)
    expect(woken.count).toBe(0)
  })
})
