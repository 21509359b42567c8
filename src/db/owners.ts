// One owner per table: the module that alone reads and writes it. Other code that needs a table's
// rows calls a function or a query fragment that the owner exports, so each rule about a table is
// written once, beside the table's other queries. An owner is an entity folder of src/core (with
// its trailing slash) or, for a table kept outside core, its module's folder or file.
// test/integration/table-ownership.test.ts checks the code against this map, and the map of
// docs/architecture.md is made from it (scripts/table-owners.ts).

export const TABLE_OWNERS = {
  account_recovery_codes: 'src/core/accounts/',
  account_sessions: 'src/core/accounts/',
  account_totp: 'src/core/accounts/',
  accounts: 'src/core/accounts/',
  api_keys: 'src/core/projects/',
  book_opt_ins: 'src/core/segments/',
  campaign_recipients: 'src/core/campaigns/',
  campaigns: 'src/core/campaigns/',
  contact_import_parts: 'src/core/contacts/',
  contact_imports: 'src/core/contacts/',
  contacts: 'src/core/contacts/',
  deliveries: 'src/core/queue/',
  delivery_site_domains: 'src/delivery/sites/',
  delivery_sites: 'src/delivery/sites/',
  dmarc_reports: 'src/core/dmarc/',
  dmarc_rows: 'src/core/dmarc/',
  domains: 'src/core/domains/',
  email_contents: 'src/core/emails/',
  email_events: 'src/core/emails/',
  emails: 'src/core/emails/',
  events: 'src/core/events/',
  idempotency_keys: 'src/core/emails/',
  inbound_reports: 'src/core/inbound/',
  leases: 'src/cluster/leases.ts',
  migrations: 'src/db/migrator.ts',
  mta_sts_policies: 'src/delivery/mta-sts.ts',
  project_invitations: 'src/core/accounts/',
  project_members: 'src/core/accounts/',
  projects: 'src/core/projects/',
  rate_limits: 'src/cluster/rate-limits.repository.ts',
  received_report_projects: 'src/core/inbound/',
  received_reports: 'src/core/inbound/',
  relay_bounce_notices: 'src/core/emails/',
  sandbox_counters: 'src/core/analytics/',
  segment_members: 'src/core/segments/',
  segment_memberships: 'src/core/segments/',
  segments: 'src/core/segments/',
  signup_forms: 'src/core/segments/',
  sending_counters: 'src/core/analytics/',
  server_checks: 'src/dns/server-checks.repository.ts',
  server_settings: 'src/delivery/sites/',
  suppressions: 'src/core/suppressions/',
  templates: 'src/core/templates/',
  webhook_deliveries: 'src/core/webhooks/',
  webhooks: 'src/core/webhooks/',
  workflow_cursors: 'src/core/workflows/',
  workflow_execution_steps: 'src/core/workflows/',
  workflow_executions: 'src/core/workflows/',
  workflows: 'src/core/workflows/',
} as const

export type OwnedTable = keyof typeof TABLE_OWNERS

/**
 * Code that reads or writes tables named at run time, for the whole database rather than for one
 * table's rules: the claim mechanism (the claim columns of every work table), the copy into
 * PostgreSQL and the backup. The migrations, outside src/, create and change every table.
 */
export const WHOLE_DATABASE_CODE = ['src/db/claims.ts', 'src/db/copy-to-postgres.ts', 'src/db/backup.ts']

/** Whether `file` (a path from the repository's root) belongs to the module `owner`. */
export const ownedBy = (file: string, owner: string) => (owner.endsWith('/') ? file.startsWith(owner) : file === owner)
