// What SpamAssassin (Debian's, local rules only: no DNS blocklists or other network tests, no
// Bayes) scores the mail Mailstead sends. Starts the app in this process with a verified sending
// domain, a fake DNS and a fake MX on loopback; sends a password reset through /v1/send and a
// campaign letter of ordinary length through /campaigns; scores each message as the fake MX
// received it; then the same from a domain with every tracking switch on. Prints one JSON line:
//   the four scores, and the rules that fired on each with their points.
// Diagnostics go to stderr.
//   bun scripts/bench/spam-score.ts
import { captureLetters, hasSpamAssassin, SPAMASSASSIN, spamScore } from '../../test/helpers/spam-score.ts'
import { createWorld } from '../../test/helpers/world.ts'
import { log } from './common.ts'

if (!hasSpamAssassin()) {
  log(`${SPAMASSASSIN} is absent: apt-get install spamassassin`)
  process.exit(1)
}
/** Both letters from a fresh world whose domain has `tracking` switched as given, scored. */
async function scored(tracking: Record<string, boolean>) {
  const w = await createWorld({ settings: { 'public-url': 'https://mail.sender.example.com' } })
  try {
    await w.t.request('PATCH', `/domains/${w.domain.id}`, { key: w.key, body: tracking })
    const letters = await captureLetters(w)
    return await Promise.all([spamScore(letters.reset), spamScore(letters.newsletter)])
  } finally {
    await w.close()
  }
}

log('sending and scoring a password reset and a campaign letter, from a domain as it starts')
const [reset, newsletter] = await scored({})
log('again from a domain that tracks opens and clicks of both kinds of mail')
const [trackedReset, trackedNewsletter] = await scored({ openTracking: true, clickTracking: true, transactionalOpenTracking: true, transactionalClickTracking: true })
console.log(
  JSON.stringify({
    reset_score: reset.score,
    newsletter_score: newsletter.score,
    tracked_reset_score: trackedReset.score,
    tracked_newsletter_score: trackedNewsletter.score,
    reset_rules: reset.rules,
    newsletter_rules: newsletter.rules,
    tracked_reset_rules: trackedReset.rules,
    tracked_newsletter_rules: trackedNewsletter.rules,
  }),
)
