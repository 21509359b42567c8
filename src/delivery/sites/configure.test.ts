import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../../config/load.ts'
import { shapingOf } from './configure.ts'

const configWith = (sites: unknown, more: Record<string, string> = {}) =>
  loadConfig({ env: { MAILSTEAD_SECRET: 'x'.repeat(32), MAILSTEAD_DELIVERY_SITES: JSON.stringify(sites), ...more } }).config

describe('site rules from the configuration', () => {
  test('override a built-in provider and add a site of their own, tried first', () => {
    const shaping = shapingOf(
      configWith({
        gmail: { connections: 2, messagesPerMinute: 600, automation: [{ text: 'slow please', action: 'throttle', duration: '10m' }] },
        corp: { match: ['.corp.example'], label: 'Our MX', connections: 1, warmup: false },
      }),
      true,
    )
    const gmail = shaping.rules.find((rule) => rule.name === 'gmail')!
    expect(gmail.limits).toEqual({ connections: 2, messagesPerConnection: 50, messagesPerMinute: 600 })
    expect(gmail.automation[0]).toMatchObject({ action: 'throttle', durationMs: 600_000 })
    expect(gmail.automation[0]!.text!.test('SLOW PLEASE')).toBe(true)
    expect(shaping.rules[0]).toMatchObject({ name: 'corp', label: 'Our MX', match: ['.corp.example'], limits: { connections: 1 }, warmup: false })
  })

  test.each([
    [{ corp: { connections: 2 } }, 'deliverySites.corp is a new site: give "match"'],
    [{ gmail: { connections: 0 } }, 'deliverySites.gmail.connections must be an integer from 1 to 1000'],
    [{ gmail: { conections: 2 } }, 'deliverySites.gmail.conections is not a site setting'],
    [{ gmail: { automation: [{ text: '(', action: 'throttle', duration: '1h' }] } }, 'deliverySites.gmail.automation[0].text is not a regular expression'],
    [{ gmail: { automation: [{ action: 'pause', duration: '1h', codes: [421] }] } }, 'deliverySites.gmail.automation[0].action must be "throttle" or "suspend"'],
    [[1, 2], 'deliverySites must be a JSON object'],
  ])('%o is refused: %s', (sites, message) => {
    expect(() => shapingOf(configWith(sites), true)).toThrow(message)
  })

  test('with shaping off there are no rules, no automation and no warm-up', () => {
    const shaping = shapingOf(configWith({}, { MAILSTEAD_DELIVERY_SHAPING: 'false' }), true)
    expect(shaping).toMatchObject({ rules: [], automation: [], settings: { warmup: { on: false } } })
  })
})
