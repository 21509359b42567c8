import type { Generated } from 'kysely'

/*
 * The tables of DMARC aggregate reports (migration 0012). Their conventions are schema.ts's
 * (0/1 booleans, epoch-ms times); it gathers them into the database type.
 */

/** One aggregate report received for a domain; (domain, reporter, report id) is seen once. */
export interface DmarcReportTable {
  id: Generated<number>
  domain_id: number
  org_name: string
  /** The reporter's name in lower case: with report_id, what a repeat is recognised by. */
  org_key: string
  report_id: string
  email: string | null
  begin_at: number
  end_at: number
  /** YYYY-MM-DD (UTC): the day its rows count on, the middle of its date range. */
  day: string
  /** JSON: the policy_published the reporter found (p, sp, adkim, aspf, pct). */
  policy: string
  messages: number
  records: number
  received_at: number
}

/** What a reporter saw of mail from one source IP on one day. */
export interface DmarcRowTable {
  id: Generated<number>
  dmarc_report_id: number
  domain_id: number
  day: string
  source_ip: string
  count: number
  disposition: string
  dkim_aligned: number
  spf_aligned: number
  dkim_result: string
  spf_result: string
  header_from: string
  envelope_from: string | null
  /** JSON: { dkim: [{domain, selector, result}], spf: [{domain, scope, result}] }. */
  auth: string
}
