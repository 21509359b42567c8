/** How much a destination site takes: what a site rule sets, and what shaping adjusts. */
export interface SiteLimits {
  /** Attempts (so connections) in flight at once. */
  connections: number
  /** Messages one connection carries before it is closed. */
  messagesPerConnection: number
  /** Attempts started per minute; null: no cap. */
  messagesPerMinute: number | null
}

/** What a reply that matches an automation rule does to its site. */
export type AutomationAction = 'throttle' | 'suspend'

/**
 * A reply pattern and what it means for the site: every condition given must match. `throttle`
 * halves the site's connections and rate for `durationMs` of quiet (then they come back a step at
 * a time); `suspend` holds all mail for the site for `durationMs` and raises a warning.
 */
export interface AutomationRule {
  /** SMTP reply codes: 421, 451, ... */
  codes?: readonly number[]
  /** Matched against the enhanced status code (4.7.28). */
  enhanced?: RegExp
  /** Matched against the reply's text. */
  text?: RegExp
  action: AutomationAction
  durationMs: number
}

/** A large provider: the MX host names that are its (by suffix), its limits and its replies. */
export interface SiteRule {
  name: string
  label: string
  /** MX host name suffixes (`.google.com`): a domain whose MX hosts end so is this provider's site. */
  match: readonly string[]
  limits: Partial<SiteLimits>
  /** A new server's mail to it is capped per day while it warms up. */
  warmup: boolean
  /** Reply patterns of this provider's own, tried before the default ones. */
  automation: readonly AutomationRule[]
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * Replies any site may give. "Slow down": 421/450/451 with 4.7.0 or 4.7.28 and words of rate or
 * volume (Gmail's 4.7.28 "unusual rate", the generic "too many connections"). "Blocked": a
 * listing on a blocklist named in a refusal, or a 5.7.1 that says blocked.
 */
export const DEFAULT_AUTOMATION: readonly AutomationRule[] = [
  { codes: [421, 450, 451, 550, 553, 554], text: /spamhaus|barracuda|spamcop|block ?list|black ?list|\bRBL\b|\bDNSBL\b/i, action: 'suspend', durationMs: 2 * HOUR },
  { enhanced: /^5\.7\.1$/, text: /\bblocked\b/i, action: 'suspend', durationMs: 2 * HOUR },
  { codes: [421, 450, 451], enhanced: /^4\.7\.(0|28)$/, text: /\brat(e|ed|es)\b|rate.?limit|too many|unusual|volume|throttl/i, action: 'throttle', durationMs: 30 * MINUTE },
  { codes: [421, 450, 451], text: /too many (connections|sessions|messages)|rate.?limit(ed|ing)?\b|throttl/i, action: 'throttle', durationMs: 30 * MINUTE },
]

/** Microsoft's throttling replies: 4.7.500 to 4.7.699, "temporarily rate limited", "server busy". */
const MICROSOFT_AUTOMATION: readonly AutomationRule[] = [
  { enhanced: /^4\.7\.[56]\d\d$/, action: 'throttle', durationMs: 1 * HOUR },
  { text: /temporarily rate limited|Server busy\. Please try again later|exceeded the maximum number of connections/i, action: 'throttle', durationMs: 1 * HOUR },
  { text: /part of their network is on our block list|\(S3150\)/i, action: 'suspend', durationMs: 2 * HOUR },
]

/**
 * The large providers, their MX host names, and limits drawn from their published guidance and
 * from the shaping defaults of KumoMTA (policy-extras and community shaping files) and Postfix
 * (default_destination_concurrency_limit 20, smtp_destination_recipient_limit 50). Every value can
 * be overridden in the configuration (deliverySites).
 */
export const SITE_RULES: readonly SiteRule[] = [
  {
    name: 'gmail',
    label: 'Gmail and Google Workspace',
    match: ['.google.com', '.googlemail.com'],
    limits: { connections: 5, messagesPerConnection: 50 },
    warmup: true,
    automation: [{ enhanced: /^4\.7\.28$/, action: 'throttle', durationMs: 1 * HOUR }],
  },
  {
    name: 'microsoft',
    label: 'Microsoft consumer mail (Outlook.com, Hotmail, Live)',
    match: ['.olc.protection.outlook.com'],
    limits: { connections: 5, messagesPerConnection: 50 },
    warmup: true,
    automation: MICROSOFT_AUTOMATION,
  },
  {
    name: 'microsoft-365',
    label: 'Microsoft 365 (Exchange Online)',
    match: ['.mail.protection.outlook.com', '.mx.microsoft'],
    limits: { connections: 5, messagesPerConnection: 50 },
    warmup: true,
    automation: MICROSOFT_AUTOMATION,
  },
  {
    name: 'yahoo',
    label: 'Yahoo and AOL',
    match: ['.yahoodns.net'],
    // Yahoo's sender guide asks for few messages per connection.
    limits: { connections: 10, messagesPerConnection: 20 },
    warmup: true,
    automation: [
      { text: /\[(TSS0[45]|IPTS0[45])\]/, action: 'throttle', durationMs: 2 * HOUR },
      { text: /\[TS0[1-3]\]/, action: 'throttle', durationMs: 30 * MINUTE },
      { text: /Max message per connection reached/i, action: 'throttle', durationMs: 1 * HOUR },
      { codes: [553, 554], text: /\[BL\d+\]/, action: 'suspend', durationMs: 2 * HOUR },
    ],
  },
  {
    name: 'apple',
    label: 'Apple iCloud',
    match: ['.icloud.com'],
    limits: { connections: 10, messagesPerConnection: 20 },
    warmup: true,
    automation: [
      { text: /\[(HCM1|BS02)\]|Service unavailable - try again later/i, action: 'throttle', durationMs: 30 * MINUTE },
      { text: /Spamhaus DBL/i, action: 'suspend', durationMs: 4 * HOUR },
    ],
  },
  {
    name: 'gmx-webde',
    label: 'GMX, Web.de and mail.com',
    match: ['.gmx.net', '.web.de', '.gmx.com', '.mail.com'],
    limits: { connections: 4, messagesPerConnection: 20 },
    warmup: true,
    automation: [
      { text: /Too many connections/i, action: 'throttle', durationMs: 30 * MINUTE },
      { text: /Reject due to policy violations/i, action: 'suspend', durationMs: 1 * HOUR },
    ],
  },
  {
    name: 'yandex',
    label: 'Yandex',
    match: ['.yandex.net', '.yandex.ru'],
    limits: { connections: 5, messagesPerConnection: 20 },
    warmup: true,
    automation: [{ text: /too many|try (again )?later|rate limit/i, codes: [421, 450, 451], action: 'throttle', durationMs: 30 * MINUTE }],
  },
  {
    name: 'mailru',
    label: 'Mail.ru',
    match: ['.mail.ru'],
    limits: { connections: 5, messagesPerConnection: 20 },
    warmup: true,
    automation: [{ text: /too many|ratelimit|rate limit|try again later/i, codes: [421, 450, 451], action: 'throttle', durationMs: 30 * MINUTE }],
  },
  {
    name: 'comcast',
    label: 'Comcast (Xfinity)',
    match: ['.comcast.net'],
    limits: { connections: 10, messagesPerConnection: 1000 },
    warmup: true,
    automation: [{ text: /RL0000|rate limit/i, action: 'throttle', durationMs: 2 * HOUR }],
  },
  {
    name: 'orange',
    label: 'Orange and Wanadoo',
    match: ['.orange.fr', '.wanadoo.fr'],
    limits: { connections: 3, messagesPerConnection: 100 },
    warmup: true,
    automation: [
      { text: /Trop de connexions|too many connections/i, action: 'throttle', durationMs: 1 * HOUR },
      { text: /Service refuse|Client host blocked/i, action: 'suspend', durationMs: 1 * HOUR },
    ],
  },
]
