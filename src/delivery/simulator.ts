/**
 * The sandbox's receiving server: what it answers a delivery, picked by the recipient's local
 * part as Amazon SES's mailbox simulator picks it. The replies are SMTP replies, so that the
 * delivery step classifies them with the same rule table as a real server's.
 */
export type Simulated =
  | { kind: 'reply'; code: number; response: string; /** Accepted, then reported as abuse by the recipient. */ complaint?: true }
  /** Refused as suppressed: as if the address were on the suppression list. */
  | { kind: 'suppressed' }

const accepted = (recipient: string, complaint?: true): Simulated => ({
  kind: 'reply',
  code: 250,
  response: `250 2.0.0 Accepted by the sandbox for ${recipient}`,
  ...(complaint && { complaint }),
})

/** The outcome for a recipient at its `attempt`-th attempt (1 for the first). */
export function simulate(recipient: string, attempt: number): Simulated {
  const local = recipient.slice(0, recipient.lastIndexOf('@')).toLowerCase()
  if (local.startsWith('bounce')) {
    return { kind: 'reply', code: 550, response: `550 5.1.1 <${recipient}>: the sandbox bounces bounce... addresses: no such user` }
  }
  if (local.startsWith('complaint')) return accepted(recipient, true)
  if (local.startsWith('defer') && attempt <= 1) {
    return { kind: 'reply', code: 451, response: `451 4.3.0 <${recipient}>: the sandbox defers defer... addresses once: try again later` }
  }
  if (local.startsWith('suppressed')) return { kind: 'suppressed' }
  return accepted(recipient)
}
