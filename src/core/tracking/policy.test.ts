import { describe, expect, test } from 'bun:test'
import { trackingFor } from './policy.ts'

const domain = (marketing: number, transactional: number) => ({
  open_tracking: marketing,
  click_tracking: marketing,
  transactional_open_tracking: transactional,
  transactional_click_tracking: transactional,
})

describe('trackingFor', () => {
  test('marketing mail follows the domain marketing switches, transactional mail its own', () => {
    expect(trackingFor(domain(1, 0), 'marketing')).toEqual({ opens: true, clicks: true })
    expect(trackingFor(domain(1, 0), 'transactional')).toEqual({ opens: false, clicks: false })
    expect(trackingFor(domain(0, 1), 'transactional')).toEqual({ opens: true, clicks: true })
  })

  test("a message's own trackOpens and trackClicks win over the domain's, each on its own", () => {
    expect(trackingFor(domain(1, 1), 'transactional', { trackOpens: false })).toEqual({ opens: false, clicks: true })
    expect(trackingFor(domain(0, 0), 'transactional', { trackClicks: true })).toEqual({ opens: false, clicks: true })
    expect(trackingFor(domain(1, 0), 'marketing', { trackOpens: false, trackClicks: false })).toEqual({ opens: false, clicks: false })
  })
})
