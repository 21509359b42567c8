import type { Config } from '../../config/config-schema.ts'
import type { Db } from '../../db/schema.ts'
import { AppError } from '../../lib/errors.ts'
import { windowCounts, type Counts } from '../analytics/counters.ts'
import { ratesOf, type SendRates } from '../analytics/rates.ts'

/**
 * The sending guardrails of Gmail's and Yahoo's bulk-sender rules (2024): per project and
 * sending domain, over a rolling window, complaints stay under 0.3% of what was delivered and hard
 * bounces under 5% of what was sent. Campaigns pause themselves when either is over;
 * transactional mail is never held, only warned about.
 */
export interface GuardrailSettings {
  /** Hours of the rolling window: the current hour and the ones before it. */
  windowHours: number
  /** Complaints over this per cent of delivered mail are over the limit. */
  complaintPercent: number
  /** Hard bounces over this per cent of sent mail are over the limit. */
  hardBouncePercent: number
  /** Mail sent (delivered or bounced) in the window before its rates are judged. */
  minDeliveries: number
}

export const DEFAULT_GUARDRAILS: GuardrailSettings = { windowHours: 24, complaintPercent: 0.3, hardBouncePercent: 5, minDeliveries: 1000 }

type GuardrailConfig = Pick<Config, 'guardrailWindowHours' | 'guardrailComplaintPercent' | 'guardrailHardBouncePercent' | 'guardrailMinDeliveries'>

export const guardrailSettingsOf = (config: GuardrailConfig): GuardrailSettings => ({
  windowHours: config.guardrailWindowHours,
  complaintPercent: config.guardrailComplaintPercent,
  hardBouncePercent: config.guardrailHardBouncePercent,
  minDeliveries: config.guardrailMinDeliveries,
})

/** Which limit is passed; also the `reason` of the campaign.paused event it causes. */
export type Breach = 'complaint_rate' | 'hard_bounce_rate'

/** A window's counts and rates, the rates in per cent (three decimals). */
export interface Rates extends Counts, SendRates {
  windowHours: number
}

export interface Judgement {
  rates: Rates
  /** Enough was sent in the window (minDeliveries) for the rates to be judged. */
  judged: boolean
  /** The limits passed, the complaint rate first; none when not judged. */
  breaches: Breach[]
}

/** `part` is more than `limit` per cent of `whole`, compared without the rounding of the shown rates. */
const over = (part: number, whole: number, limit: number) => whole > 0 && part * 100 > limit * whole * (1 + 1e-12)

/** Judges a window's counts against the limits. */
export function judge(counts: Counts, settings: GuardrailSettings): Judgement {
  const rates: Rates = { windowHours: settings.windowHours, ...counts, ...ratesOf(counts) }
  const { sent } = rates
  const judged = sent >= settings.minDeliveries
  const breaches: Breach[] = []
  if (judged && over(counts.complained, counts.delivered, settings.complaintPercent)) breaches.push('complaint_rate')
  if (judged && over(counts.hardBounced, sent, settings.hardBouncePercent)) breaches.push('hard_bounce_rate')
  return { rates, judged, breaches }
}

/** A sending domain of a project, as the guardrails name it. */
export interface GuardedDomain {
  id: number
  name: string
}

export interface Verdict extends Judgement {
  domain: GuardedDomain
  /** What is over, said for people; null when nothing is. */
  message: string | null
}

/** The project's rates from the domain over the window that ends now, judged. */
export async function guardrailVerdict(db: Db, projectId: number, domain: GuardedDomain, settings: GuardrailSettings, now: number): Promise<Verdict> {
  const judgement = judge(await windowCounts(db, projectId, domain.id, now, settings.windowHours), settings)
  return { ...judgement, domain, message: judgement.breaches.length === 0 ? null : breachText(domain.name, judgement, settings) }
}

const count = (n: number) => n.toLocaleString('en-US')

/** What is over, for people: "complaints were 0.5% of the mail sender.example.com delivered in the last 24 hours (6 of 1,200), over the 0.3% limit". */
export function breachText(domainName: string, judgement: Judgement, settings: GuardrailSettings): string {
  const { rates } = judgement
  const window = `in the last ${settings.windowHours === 1 ? 'hour' : `${settings.windowHours} hours`}`
  return judgement.breaches
    .map((breach) =>
      breach === 'complaint_rate'
        ? `complaints were ${rates.complaintRate}% of the mail ${domainName} delivered ${window} (${count(rates.complained)} of ${count(rates.delivered)}), over the ${settings.complaintPercent}% limit`
        : `hard bounces were ${rates.hardBounceRate}% of the mail ${domainName} sent ${window} (${count(rates.hardBounced)} of ${count(rates.sent)}), over the ${settings.hardBouncePercent}% limit`,
    )
    .join('; ')
}

/** What a campaign paused by the guardrails keeps in its `error`. */
export const guardrailPauseMessage = (verdict: Verdict) =>
  `Paused by the sending guardrails: ${verdict.message}. It can be resumed once the rate is back under the limit (GET /api/v1/domains/${verdict.domain.id}/stats).`

/** The facts of a verdict, as the campaign.paused event and the log line carry them. */
export const verdictFacts = (verdict: Verdict, settings: GuardrailSettings) => ({
  domainId: verdict.domain.id,
  domain: verdict.domain.name,
  ...verdict.rates,
  complaintLimit: settings.complaintPercent,
  hardBounceLimit: settings.hardBouncePercent,
  minDeliveries: settings.minDeliveries,
})

/**
 * A 409 while the guardrails hold a campaign's domain: resuming it would only pause it again at
 * its next round, so resume says why instead.
 */
export async function requireUnderGuardrails(db: Db, projectId: number, domain: GuardedDomain, settings: GuardrailSettings, now: number): Promise<void> {
  const verdict = await guardrailVerdict(db, projectId, domain, settings, now)
  if (verdict.message === null) return
  throw new AppError(409, 'SENDING_GUARDRAIL', `The campaign cannot be resumed while the sending guardrails hold it: ${verdict.message}`, {
    suggestion:
      `The rate falls as older hours leave the ${settings.windowHours}-hour window and as more mail is delivered; ` +
      `GET /api/v1/domains/${domain.id}/stats shows it. The limits are set by MAILSTEAD_GUARDRAIL_COMPLAINT_PERCENT, ` +
      'MAILSTEAD_GUARDRAIL_HARD_BOUNCE_PERCENT, MAILSTEAD_GUARDRAIL_MIN_DELIVERIES and MAILSTEAD_GUARDRAIL_WINDOW_HOURS.',
  })
}
