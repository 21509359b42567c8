import { describe, expect, test } from 'bun:test'
import { allDone, dismissedKey, gettingStartedSteps } from './get-started.ts'

const none = { sandbox: false, verifiedDomains: [], keys: 0, emails: 0, webhooks: 0 }

describe('the Get started checklist', () => {
  test('a new project has four steps to do, each with where to do it', () => {
    const steps = gettingStartedSteps(none)
    expect(steps.map((s) => [s.id, s.done, s.href])).toEqual([
      ['domain', false, '/domains'],
      ['key', false, '/api-keys'],
      ['email', false, '/emails'],
      ['webhook', false, '/webhooks'],
    ])
    expect(allDone(steps)).toBe(false)
  })

  test('each step is done from what the lists answer, and says what is there', () => {
    const steps = gettingStartedSteps({ sandbox: false, verifiedDomains: ['example.com', 'example.org'], keys: 1, emails: 3, webhooks: 1 })
    expect(steps.map((s) => s.detail)).toEqual(['example.com and 1 other verified.', '1 key made.', '3 emails sent.', '1 endpoint told of events.'])
    expect(allDone(steps)).toBe(true)
  })

  test('a sandbox needs no domain: that step is done', () => {
    const [domain] = gettingStartedSteps({ ...none, sandbox: true })
    expect(domain).toMatchObject({ title: 'Sandbox project: no domain needed', done: true })
  })

  test('dismissal is remembered per project', () => {
    expect(dismissedKey(12)).toBe('mailstead.get-started.dismissed.12')
  })
})
