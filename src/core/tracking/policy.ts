import type { MailStream } from './bulk-mail.ts'
import { pixelCostsPoints } from './pixel-cost.ts'

/** A domain's tracking switches (1 on, 0 off), one pair for each stream. */
export interface DomainTracking {
  open_tracking: number
  click_tracking: number
  transactional_open_tracking: number
  transactional_click_tracking: number
}

/**
 * A sandbox's switches for a sender with no domain row: marketing mail tracked, so that opens and
 * clicks can be tried, and transactional mail not, as a domain tracks it unless told otherwise.
 */
export const SANDBOX_TRACKING: DomainTracking = { open_tracking: 1, click_tracking: 1, transactional_open_tracking: 0, transactional_click_tracking: 0 }

/** What one message asks for; absent: the domain's default for the message's stream. */
export interface TrackingAsked {
  trackOpens?: boolean
  trackClicks?: boolean
}

/**
 * Whether one message is tracked: what it asks for, else its domain's switch for its stream.
 * Marketing mail follows `open_tracking`/`click_tracking`; transactional mail its own pair, off
 * unless the domain turns it on. Given the HTML, a domain's switch adds no pixel where the pixel
 * alone would cost spam points (pixelCostsPoints); a message's own `trackOpens: true` always does.
 */
export function trackingFor(domain: DomainTracking, stream: MailStream, asked: TrackingAsked = {}, html?: string): { opens: boolean; clicks: boolean } {
  const marketing = stream === 'marketing'
  const opens = (marketing ? domain.open_tracking : domain.transactional_open_tracking) === 1
  const clicks = (marketing ? domain.click_tracking : domain.transactional_click_tracking) === 1
  const defaultOpens = opens && (html === undefined || !pixelCostsPoints(html))
  return { opens: asked.trackOpens ?? defaultOpens, clicks: asked.trackClicks ?? clicks }
}
