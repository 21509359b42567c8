import type { Webhook } from '../../api/webhooks.api.ts'

/** Enabled, disabled by a person, or disabled by the server after failing calls. */
export function StatusBadge({ webhook }: { webhook: Pick<Webhook, 'enabled' | 'disabledReason' | 'consecutiveFailures'> }) {
  if (!webhook.enabled) return <span className={webhook.disabledReason ? 'badge tone-bad' : 'badge badge-off'}>{webhook.disabledReason ? 'Disabled by failures' : 'Disabled'}</span>
  if (webhook.consecutiveFailures > 0) return <span className="badge tone-wait">Failing ({webhook.consecutiveFailures} in a row)</span>
  return <span className="badge badge-ok">Enabled</span>
}
