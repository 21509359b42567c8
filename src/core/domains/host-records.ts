import { hostnameProblem } from '../../config/hostname.ts'
import type { ExpectedRecord, RecordKind } from './records.ts'

/*
 * Two of a domain's records name this server's host name (MAILSTEAD_HOSTNAME): the return-path MX
 * and the SPF record. When that is not a public DNS name (the machine's own name, "vm", by
 * default) they cannot work (`MX 10 vm.`): the CLI, the API and the console all say so instead
 * of handing them out as if they could, and say which setting to set first.
 */

/** The records whose value is this server's host name. */
const NAMES_HOST: readonly RecordKind[] = ['return-path-mx', 'spf']

/** Why `record` cannot be published yet for this `hostname`, or undefined when it can. */
export function unpublishableReason(record: Pick<ExpectedRecord, 'kind'>, hostname: string): string | undefined {
  if (!NAMES_HOST.includes(record.kind) || !hostnameProblem(hostname)) return undefined
  return `it would name "${hostname}", which is not a public DNS name; set MAILSTEAD_HOSTNAME (--hostname) to this server's name, then get the records again`
}

/** What a domain's answer says once, above its records, when some of them cannot be published yet. */
export function hostRecordsWarning(hostname: string): string | undefined {
  const problem = hostnameProblem(hostname)
  if (!problem) return undefined
  return `The return-path MX and SPF records cannot be published yet. ${problem} (--hostname on the command line), then get the records again.`
}
