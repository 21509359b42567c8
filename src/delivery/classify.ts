/** What a delivery attempt came to, and why. */
export type Outcome =
  | { kind: 'delivered' }
  | { kind: 'deferred'; category: string }
  | { kind: 'bounced'; category: string; /** The address itself is bad: suppress it. */ hard: boolean }

export interface SmtpReply {
  code: number
  /** RFC 3463 enhanced status code, when the server gave one: 5.1.1 */
  enhanced?: string
  text: string
}

const delivered: Outcome = { kind: 'delivered' }
const deferred = (category: string): Outcome => ({ kind: 'deferred', category })
const bounced = (category: string, hard = false): Outcome => ({ kind: 'bounced', category, hard })

/** Enhanced status codes (RFC 3463), most specific first. They decide when the server gives one. */
const ENHANCED_RULES: ReadonlyArray<[RegExp, Outcome]> = [
  [/^2\./, delivered],
  [/^4\./, deferred('temporary')],
  [/^5\.1\.(0|1|3|6)$/, bounced('recipient', true)],
  [/^5\.1\.(2|10)$/, bounced('domain', true)],
  [/^5\.2\.1$/, bounced('mailbox-disabled', true)],
  // "Other mail system status", given to RCPT for an address the system will not take.
  [/^5\.3\.0$/, bounced('mail-system', true)],
  [/^5\.2\.2$/, bounced('mailbox-full')],
  [/^5\.2\.3$|^5\.3\.4$/, bounced('message-too-large')],
  [/^5\.7\./, bounced('policy')],
]

/** Known texts, for servers that give no enhanced code. */
const TEXT_RULES: ReadonlyArray<[RegExp, Outcome]> = [
  [/try again|temporar|greylist|graylist|rate.?limit|too many (connections|messages)/i, deferred('temporary')],
  [/user unknown|unknown (user|recipient)|no such (user|mailbox|recipient)|does not exist|recipient (address )?rejected|invalid (recipient|mailbox)|mailbox (unavailable|not found)|address rejected/i, bounced('recipient', true)],
  [/mailbox (is )?full|over quota|quota exceeded|insufficient storage/i, bounced('mailbox-full')],
  [/spam|blocked|black ?list|block ?list|reputation|policy|not authori[sz]ed/i, bounced('policy')],
  [/message (size|too (big|large))|too large/i, bounced('message-too-large')],
]

/**
 * The outcome of a reply: its enhanced status code first, then its reply code, then known texts
 * (which also let a 5xx that says "try again later" be deferred). A permanent enhanced code that
 * says nothing specific (5.0.0, 5.5.x) is read with its text, so that one naming the recipient as
 * unknown is hard like a 5.1.1; a permanent code never becomes a deferral.
 */
export function classifyReply(reply: SmtpReply): Outcome {
  const byText = TEXT_RULES.find(([pattern]) => pattern.test(reply.text))?.[1]
  if (reply.enhanced) {
    const rule = ENHANCED_RULES.find(([pattern]) => pattern.test(reply.enhanced!))
    if (rule) return rule[1]
    if (reply.enhanced.startsWith('5.')) return byText?.kind === 'bounced' ? byText : bounced('other')
  }
  if (reply.code >= 200 && reply.code < 300) return delivered
  if (reply.code >= 400 && reply.code < 500) return deferred(byText?.kind === 'deferred' ? byText.category : 'temporary')
  if (reply.code >= 500 && reply.code < 600) return byText ?? bounced('other')
  return deferred('protocol')
}

/** A reply line's parts: `550 5.1.1 No such user` -> {code 550, enhanced 5.1.1, text}. */
export function parseReply(code: number, response: string): SmtpReply {
  const text = response.replace(/^\d{3}[ -]/gm, '').trim()
  const enhanced = /^([245]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1]
  return { code, enhanced, text }
}
