import { isoTime } from '../../lib/clock.ts'
import type { DomainRow } from './domains.repository.ts'
import { subdomainOf } from './domain-name.ts'
import { hostRecordsWarning, unpublishableReason } from './host-records.ts'
import { expectedRecords, type RecordKind } from './records.ts'
import type { RecordStatus } from './status.ts'

/** What the last check found for one record, as kept in the `findings` column. */
export interface Finding {
  status: RecordStatus
  found: string | null
  problem?: string
}

export type Findings = Partial<Record<RecordKind, Finding>>

export const readFindings = (row: Pick<DomainRow, 'findings'>): Findings => (row.findings ? JSON.parse(row.findings) : {})

const LABELS: Record<RecordKind, string> = {
  dkim: 'DKIM',
  'dkim-ed25519': 'DKIM (Ed25519)',
  'return-path-mx': 'Return-path MX',
  spf: 'SPF',
  dmarc: 'DMARC',
}

/** The Domain of the interface: every field, records with their last verdicts. */
export function toDomain(row: DomainRow, hostname: string) {
  const findings = readFindings(row)
  const records = expectedRecords(row, hostname)
  return {
    id: row.id,
    name: row.name,
    teamId: row.project_id,
    status: row.status,
    publicKey: row.dkim_public_key,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    dnsRecords: records.map((record) => ({
      type: record.type,
      name: record.name,
      value: record.value,
      ttl: '3600',
      status: findings[record.kind]?.status ?? 'PENDING',
      priority: record.priority === undefined ? '' : String(record.priority),
      recommended: !record.required,
      // What the last check saw, beside what is expected (`value`): the console shows both.
      found: findings[record.kind]?.found ?? null,
      problem: findings[record.kind]?.problem ?? null,
      // Added beside useSend's fields (which keep what they hold): a record naming a host that is
      // not a public DNS name cannot work, and says why instead of passing for one to publish.
      unpublishable: unpublishableReason(record, hostname) ?? null,
    })),
    region: row.region,
    clickTracking: row.click_tracking === 1,
    openTracking: row.open_tracking === 1,
    transactionalClickTracking: row.transactional_click_tracking === 1,
    transactionalOpenTracking: row.transactional_open_tracking === 1,
    dkimStatus: findings.dkim?.status ?? null,
    spfDetails: findings.spf ? (findings.spf.found ?? findings.spf.problem ?? null) : null,
    dmarcAdded: findings.dmarc?.status === 'SUCCESS',
    isVerifying: row.is_verifying === 1,
    errorMessage: row.error_message,
    subdomain: subdomainOf(row.name),
    verificationError: verificationError(records, findings),
    lastCheckedTime: row.last_checked_at === null ? null : isoTime(row.last_checked_at),
    hostnameWarning: hostRecordsWarning(hostname) ?? null,
  }
}

export type Domain = ReturnType<typeof toDomain>

/** Each required record that is not right: which, what was expected, what was found. */
function verificationError(records: ReturnType<typeof expectedRecords>, findings: Findings): string | null {
  const lines = records
    .filter((record) => record.required && findings[record.kind] && findings[record.kind]!.status !== 'SUCCESS')
    .map((record) => {
      const finding = findings[record.kind]!
      return `${LABELS[record.kind]} ${record.type} ${record.name}: expected "${record.value}", found ${
        finding.found === null ? 'nothing' : `"${finding.found}"`
      }${finding.problem ? ` (${finding.problem})` : ''}`
    })
  return lines.length > 0 ? lines.join('\n') : null
}

export const recordLabel = (kind: RecordKind) => LABELS[kind]
