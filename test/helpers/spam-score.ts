import { existsSync } from 'node:fs'
import { addContacts, runCampaign } from './campaigns.ts'
import { receivedBy } from './sending.ts'
import type { World } from './world.ts'

/** Debian's SpamAssassin; the tests that score mail skip without it. */
export const SPAMASSASSIN = '/usr/bin/spamassassin'
export const hasSpamAssassin = () => existsSync(SPAMASSASSIN)

export interface SpamScore {
  score: number
  /** Every rule that fired, with its points. */
  rules: Record<string, number>
}

/**
 * A message's score with local rules only (-L: no DNS blocklists, no Razor, no network), and
 * neither Bayes nor auto-learning, so that one run never changes the next one's score.
 */
export async function spamScore(raw: string | Buffer): Promise<SpamScore> {
  const child = Bun.spawn([SPAMASSASSIN, '-L', '-t', '--cf=use_bayes 0', '--cf=bayes_auto_learn 0', '--cf=use_auto_whitelist 0'], {
    stdin: typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw,
    stdout: 'pipe',
    stderr: 'ignore',
  })
  const out = await new Response(child.stdout).text()
  await child.exited
  const status = /^X-Spam-Status: \w+, score=(-?[\d.]+)/m.exec(out)
  if (!status) throw new Error(`spamassassin gave no X-Spam-Status: ${out.slice(0, 400)}`)
  const table = out.slice(out.lastIndexOf('---- ----'))
  const rules: Record<string, number> = {}
  for (const [, points, name] of table.matchAll(/^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s/gm)) rules[name!] = Number(points)
  return { score: Number(status[1]), rules }
}

/** A password-reset mail as an app sends it through Plunk's /v1/send. */
export const PASSWORD_RESET = {
  to: 'reset-reader@example.net',
  from: 'Acme Accounts <accounts@sender.example.com>',
  subject: 'Reset your Acme password',
  body: `<!doctype html><html><body style="font-family: sans-serif">
<h1>Reset your password</h1>
<p>Hi Jamie,</p>
<p>Someone asked to reset the password of your Acme account (jamie@example.net). If it was you, choose a new password with the button below. The link works for one hour.</p>
<p><a href="https://app.acme.example/reset?token=3f9a2c7d1b" style="background:#2457d6;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none">Choose a new password</a></p>
<p>If you did not ask for this, you can ignore this mail: your password stays as it is.</p>
<p>Thanks,<br>The Acme team</p>
<p style="color:#666;font-size:12px">Acme Ltd, 12 Harbour Street, Bristol BS1 4QA, United Kingdom. Questions? Write to <a href="mailto:support@acme.example?subject=Password%20reset">support@acme.example</a>.</p>
</body></html>`,
}

/** A monthly newsletter of ordinary length: preview text, headings, a table, links, unsubscribe. */
export const NEWSLETTER = {
  name: 'November letter',
  subject: 'What we shipped in November',
  from: 'news@sender.example.com',
  fromName: 'Acme News',
  audienceType: 'ALL',
  body: `<!doctype html><html><body style="font-family: sans-serif">
<span style="display:none;max-height:0;overflow:hidden">Faster exports, shared folders and a new mobile app.</span>
<h1>November at Acme</h1>
<p>Hello {{data.firstName ?? "there"}},</p>
<p>Here is what changed in Acme this month. As always, thank you for the notes you sent us: most of this came from them.</p>
<h2>Faster exports</h2>
<p>Exports of large projects now finish in seconds rather than minutes. We rewrote the exporter to stream rows as it reads them, so memory stays flat however large the project is. <a href="https://acme.example/blog/faster-exports">Read how we did it</a>.</p>
<h2>Shared folders</h2>
<p>You can now share a folder with your whole team and choose who may edit it. Folders shared before keep their settings.</p>
<table role="presentation" cellpadding="6"><tr><th>Plan</th><th>Shared folders</th><th>Members</th></tr>
<tr><td>Free</td><td>3</td><td>5</td></tr><tr><td>Team</td><td>Unlimited</td><td>50</td></tr></table>
<h2>The mobile app</h2>
<p>Our new app for iOS and Android lets you review and approve changes on the go. <a href="https://acme.example/mobile">Get the app</a>.</p>
<p>See you next month,<br>Priya, for the Acme team</p>
<hr>
<p style="color:#666;font-size:12px">You receive this because you signed up at acme.example. Acme Ltd, 12 Harbour Street, Bristol BS1 4QA, United Kingdom.
<a href="{{unsubscribeUrl}}">Unsubscribe</a></p>
</body></html>`,
}

/** The two letters as the fake MX received them: a password reset, and one campaign copy. */
export async function captureLetters(w: World): Promise<{ reset: string; newsletter: string }> {
  const sent = await w.t.request('POST', '/v1/send', { key: w.key, body: PASSWORD_RESET })
  if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`)
  await w.deliver()
  const [reader] = await addContacts(w, ['newsletter-reader@example.net'], () => ({ firstName: 'Jamie' }))
  const draft = await w.t.request('POST', '/campaigns', { key: w.key, body: NEWSLETTER })
  const id = draft.body.data.id
  await w.t.request('POST', `/campaigns/${id}/send`, { key: w.key, body: {} })
  await runCampaign(w, id)
  return { reset: receivedBy(w, PASSWORD_RESET.to).raw, newsletter: receivedBy(w, reader!.email).raw }
}
