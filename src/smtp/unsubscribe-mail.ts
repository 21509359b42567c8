import { setSubscription } from '../core/emails/index.ts'
import type { ReportDeps } from './handle-report.ts'

/**
 * Applies mail to `unsubscribe+<token>@...`, the mailto of List-Unsubscribe: the recipient of
 * each email named is unsubscribed, all in one transaction. The address is the whole request, so
 * what the message says is not read; a repeat changes nothing.
 */
export async function handleUnsubscribeMail(deps: ReportDeps, emailIds: string[]): Promise<number> {
  const now = deps.clock.now()
  const changed = await deps.write(async (trx) => {
    let count = 0
    for (const emailId of new Set(emailIds)) {
      if ((await setSubscription(trx, emailId, false, 'mail', now))?.changed) count++
    }
    return count
  })
  deps.logger.info('UNSUBSCRIBED', changed > 0 ? `by mail: ${changed} contacts` : 'by mail: nobody left to unsubscribe')
  return changed
}
