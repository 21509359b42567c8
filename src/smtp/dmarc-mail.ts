import { domainsOfReportAddress, reportOwners, storeReport, type StoreOutcome } from '../core/dmarc/dmarc.service.ts'
import { DMARC_LIMITS, parseDmarcMessage, type DmarcLimits } from './dmarc-report.ts'
import type { ReportDeps } from './handle-report.ts'

/**
 * What the MX listener answers a message sent to a report address. A report this server cannot
 * use is refused for good (5xx, with the reason): a reporter retries a 4xx for days, and a report
 * that is malformed, a bomb or about another domain will not get better. Only this server's own
 * trouble (the database) is a 4xx, so the report comes again.
 */
export type DmarcAnswer = { accepted: true; message: string } | { accepted: false; code: number; message: string }

/** A reason as one short line of ASCII: an SMTP reply holds nothing else, and names from the report may. */
const printable = (reason: string) => {
  const line = reason.replace(/[^\x20-\x7e]/g, '?')
  return line.length > 300 ? `${line.slice(0, 297)}...` : line
}

/**
 * Handles a DMARC aggregate report sent to `address` (dmarc@<return-path host>): reads it and
 * keeps it for the sending domain the address belongs to, once. Throws only when storing fails.
 */
export async function handleDmarcMail(deps: ReportDeps, raw: Buffer, address: string, limits: DmarcLimits = DMARC_LIMITS): Promise<DmarcAnswer> {
  const refused = (reason: string, fields: Record<string, unknown> = {}): DmarcAnswer => {
    deps.logger.warn('DMARC', `report to ${address} refused: ${reason}`, fields)
    return { accepted: false, code: 554, message: `5.6.0 DMARC report refused: ${printable(reason)}` }
  }
  const parsed = await parseDmarcMessage(raw, limits)
  if (!parsed.ok) return refused(parsed.reason)
  const { report } = parsed
  const about = { reporter: report.orgName, reportId: report.reportId, domain: report.domain }
  const now = deps.clock.now()
  const outcomes = await deps.write(async (trx) => {
    const owners = reportOwners(await domainsOfReportAddress(trx, address))
    const results: Array<{ domain: string; outcome: StoreOutcome }> = []
    for (const domain of owners) results.push({ domain: domain.name, outcome: await storeReport(trx, domain, report, now) })
    return results
  })
  if (outcomes.length === 0) {
    return refused('no sending domain of this server owns this address (several projects added it and none has verified it, or it was removed)', about)
  }
  const refusal = outcomes.find((o) => o.outcome.result === 'refused')?.outcome
  if (refusal?.result === 'refused') return refused(refusal.reason, about)
  const outcome = outcomes[0]!.outcome
  if (outcome.result === 'duplicate') {
    deps.logger.info('DMARC', `report ${report.reportId} from ${report.orgName} for ${outcomes[0]!.domain} received again; counted once`, about)
    return { accepted: true, message: 'DMARC report already received; counted once' }
  }
  if (outcome.result === 'stored') {
    const fields = { ...about, day: outcome.day, records: outcome.records, messages: outcome.messages, container: parsed.container }
    const what = `${outcome.messages} messages from ${outcome.records} records on ${outcome.day}`
    deps.logger.info('DMARC', `report from ${report.orgName} for ${outcomes[0]!.domain}: ${what}`, fields)
  }
  return { accepted: true, message: 'DMARC report received' }
}
