// What SpamAssassin (Debian's, local rules only: no DNS blocklists or other network tests, no
// Bayes) scores the mail Mailstead sends. Starts the app in this process with a verified sending
// domain, a fake DNS and a fake MX on loopback; sends a password reset through /v1/send and a
// campaign letter of ordinary length through /campaigns; scores each message as the fake MX
// received it. Prints one JSON line:
//   reset_score, newsletter_score, and the rules that fired on each with their points.
// Diagnostics go to stderr.
//   bun scripts/bench/spam-score.ts
import { captureLetters, hasSpamAssassin, SPAMASSASSIN, spamScore } from '../../test/helpers/spam-score.ts'
import { createWorld } from '../../test/helpers/world.ts'
import { log } from './common.ts'

if (!hasSpamAssassin()) {
  log(`${SPAMASSASSIN} is absent: apt-get install spamassassin`)
  process.exit(1)
}
const w = await createWorld({ settings: { 'public-url': 'https://mail.sender.example.com' } })
try {
  log('sending a password reset and a campaign letter')
  const letters = await captureLetters(w)
  log('scoring both')
  const [reset, newsletter] = await Promise.all([spamScore(letters.reset), spamScore(letters.newsletter)])
  console.log(JSON.stringify({ reset_score: reset.score, newsletter_score: newsletter.score, reset_rules: reset.rules, newsletter_rules: newsletter.rules }))
} finally {
  await w.close()
}
