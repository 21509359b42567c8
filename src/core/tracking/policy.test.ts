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

describe('the open pixel where it would cost spam points', () => {
  const short = '<html><body><p>Your code is 493021.</p></body></html>'
  const withLogo = '<html><body><img src="https://example.com/logo.png" alt="Example"><p>News</p></body></html>'
  const long = `<html><body><p>${'A letter of some length. '.repeat(140)}</p></body></html>`

  test("the domain's switch adds no pixel to short HTML without images of its own", () => {
    expect(trackingFor(domain(1, 1), 'marketing', {}, short)).toEqual({ opens: false, clicks: true })
  })

  test('it does to HTML that has an image already, or more than 3,200 bytes of text', () => {
    expect(trackingFor(domain(1, 1), 'marketing', {}, withLogo).opens).toBe(true)
    expect(trackingFor(domain(1, 1), 'transactional', {}, long).opens).toBe(true)
  })

  test('a message that asks for trackOpens gets the pixel all the same', () => {
    expect(trackingFor(domain(0, 0), 'transactional', { trackOpens: true }, short).opens).toBe(true)
  })
})
