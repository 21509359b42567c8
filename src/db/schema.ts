import type { Generated, Kysely } from 'kysely'
import type {
  SegmentTable,
  SegmentMemberTable,
  BookOptInTable,
  SignupFormTable,
  SegmentMembershipTable,
  CampaignTable,
  CampaignRecipientTable,
  ContactImportPartTable,
  ContactImportTable,
  WorkflowTable,
  WorkflowExecutionTable,
  WorkflowExecutionStepTable,
  WorkflowCursorTable,
  WebhookTable,
  WebhookDeliveryTable,
} from './automation-schema.ts'
import type { AccountRecoveryCodeTable, AccountSessionTable, AccountTable, AccountTotpTable, ProjectInvitationTable, ProjectMemberTable } from './accounts-schema.ts'
import type { Claimable, LeaseTable, RateLimitTable } from './cluster-schema.ts'
import type { DmarcReportTable, DmarcRowTable } from './dmarc-schema.ts'
import type { ReceivedReportProjectTable, ReceivedReportTable } from './inbound-schema.ts'

import type { DeliverySiteDomainTable, DeliverySiteTable, ServerSettingTable } from './delivery-schema.ts'

export type * from './accounts-schema.ts'
export type * from './automation-schema.ts'
export type * from './cluster-schema.ts'
export type * from './delivery-schema.ts'
export type * from './dmarc-schema.ts'
export type * from './inbound-schema.ts'

/** Booleans are 0/1 and times are epoch milliseconds in SQLite; rows convert at the edges. */
export interface ProjectTable {
  id: Generated<number>
  name: string
  disabled: number
  rate_limit_per_minute: number | null
  /** The From used when a send names none. */
  default_sender: string | null
  /** Overrides the server-wide emails per second for this project. */
  send_rate_per_second: number | null
  /** 1: its mail is simulated at the delivery step, never sent to an MX host. */
  sandbox: Generated<number>
  /** Sealed PKCS#8 PEM of the RSA key its sandbox mail is signed with (selector "sandbox"). */
  sandbox_dkim_private_key: string | null
  /** The key's p= value: what a receiver's DKIM check would find in DNS. */
  sandbox_dkim_public_key: string | null
  /** #rrggbb: the colour of the pages its recipients open; null for none. */
  brand_color: string | null
  created_at: number
  updated_at: number
}

export interface ApiKeyTable {
  id: Generated<number>
  project_id: number
  type: 'secret' | 'public'
  /** The first characters of the key: shown in listings and used to find the row. */
  prefix: string
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string
  created_at: number
  revoked_at: number | null
  /** Given on creation; keys made before names had one are named after their type. */
  name: Generated<string>
  /** What the key may do (src/http/key-scopes.ts): full, sending or read. */
  scope: Generated<'full' | 'sending' | 'read'>
  /** Refused from then on; null for never. */
  expires_at: number | null
  /** Written at most once a minute per key and process, not at every request. */
  last_used_at: number | null
}

export interface ContactTable {
  id: string
  project_id: number
  email: string
  /** Lower-cased address with an ASCII domain: unique per project. */
  email_key: string
  subscribed: number
  /** JSONB (SQLite's binary JSON): written with jsonb functions, read as text with json(). */
  data: Uint8Array
  created_at: number
  updated_at: number
}

/** A contact as the application reads it: its data as JSON text. */
export type ContactRow = Omit<ContactTable, 'data'> & { data: string }

export interface EventTable {
  id: Generated<number>
  project_id: number
  contact_id: string
  name: string
  data: string | null
  created_at: number
}

export type DomainStatus = 'NOT_STARTED' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'TEMPORARY_FAILURE'

export interface DomainTable extends Claimable {
  id: Generated<number>
  project_id: number
  /** ASCII (punycode), lower case. */
  name: string
  region: string
  status: DomainStatus
  return_path_label: string
  dkim_selector: string
  /** Base64 SubjectPublicKeyInfo: what the DKIM record's p= holds. */
  dkim_public_key: string
  /** PKCS#8 PEM, sealed with a key derived from the server secret. */
  dkim_private_key: string
  ed25519_selector: string
  /** Base64 of the raw 32-byte key (RFC 8463). */
  ed25519_public_key: string
  ed25519_private_key: string
  /** The marketing mail's tracking switches (campaigns, workflows, MARKETING templates). */
  open_tracking: Generated<number>
  click_tracking: Generated<number>
  /** The transactional mail's: off unless turned on (migration 0036). */
  transactional_open_tracking: Generated<number>
  transactional_click_tracking: Generated<number>
  /** JSON: the findings of the last check, one per record. */
  findings: string | null
  error_message: string | null
  is_verifying: Generated<number>
  last_checked_at: number | null
  next_check_at: number
  verified_at: number | null
  failing_since: number | null
  created_at: number
  updated_at: number
}

export interface TemplateTable {
  id: string
  project_id: number
  name: string
  subject: string
  body: string
  type: TemplateType
  created_at: number
  updated_at: number
}

/** Plunk's template types: what the template is for. */
export type TemplateType = 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS'

export type EmailStatus =
  | 'SCHEDULED'
  | 'QUEUED'
  | 'SENT'
  | 'DELIVERED'
  | 'DELIVERY_DELAYED'
  | 'BOUNCED'
  | 'FAILED'
  | 'CANCELLED'
  | 'SUPPRESSED'
  | 'COMPLAINED'
  | 'OPENED'
  | 'CLICKED'

export interface EmailTable {
  id: string
  project_id: number
  domain_id: number | null
  contact_id: string | null
  from_address: string
  /** JSON: {to, cc, bcc, replyTo}, each a list of addresses as given. */
  recipients: string
  subject: string
  message_id: string
  /** The DKIM-Signature header(s), made at the first attempt and kept for the others. */
  dkim_header: string | null
  /** The status of the latest event. */
  status: EmailStatus
  scheduled_at: number | null
  created_at: number
  updated_at: number
}

/** An email's bodies and built message: written once, never updated. */
export interface EmailContentTable {
  email_id: string
  html: string | null
  text: string | null
  /** The message as built once, unsigned: every attempt sends these bytes. */
  mime: Uint8Array
}

/** A relayed email's envelope sender, to be sent a bounce notice (src/core/emails/bounce-notice.ts). */
export interface RelayBounceNoticeTable {
  email_id: string
  notify: string
}

/** `paused`: held by a paused campaign; never claimed until the campaign resumes. */
export type DeliveryState = 'scheduled' | 'queued' | 'sending' | 'deferred' | 'paused' | 'delivered' | 'bounced' | 'failed' | 'cancelled' | 'suppressed'

export interface DeliveryTable extends Claimable {
  id: Generated<number>
  email_id: string
  project_id: number
  recipient: string
  /** ASCII, lower case: what MX is asked about and what limits count by. */
  recipient_domain: string
  state: DeliveryState
  attempts: Generated<number>
  next_attempt_at: number
  expires_at: number
  last_mx: string | null
  last_response: string | null
  /** The address the last attempt that reached a server connected to. */
  last_ip: string | null
  /** JSON: that attempt's TLS session ({version, cipher, verified, ...}); null in plain text. */
  last_tls: string | null
  /** 1: queued by a sandbox project, so its attempt is simulated whatever the project is now. */
  sandbox: Generated<number>
  created_at: number
  updated_at: number
}

export interface EmailEventTable {
  id: Generated<number>
  email_id: string
  status: EmailStatus
  data: string | null
  created_at: number
}

export interface SuppressionTable {
  id: Generated<number>
  project_id: number
  email: string
  email_key: string
  /** erased: an erased contact's address, kept as its hash (email and email_key are both `sha256:<hex>`). */
  reason: 'hard_bounce' | 'complaint' | 'manual' | 'erased'
  detail: string | null
  created_at: number
}

export interface IdempotencyKeyTable {
  project_id: number
  key: string
  request_hash: string
  /** JSON: the first answer, given again to a repeat. */
  response: string
  created_at: number
}

export interface InboundReportTable {
  /** What a report is about: the delivery and the class of its effect (`delivery:7|complaint`), so a report sent again is applied once. */
  fingerprint: string
  created_at: number
}

/** The latest results of one of the server's own checks; see migrations/0013_server_checks.ts. */
export interface ServerCheckTable {
  name: string
  report: string | null
  checked_at: number | null
  running_since: number | null
}

/** One project's outcomes from one sending domain in one hour: what the guardrails sum over their window. */
export interface SendingCounterTable {
  project_id: number
  domain_id: number
  /** Hours since the epoch (UTC). */
  hour: number
  /** First attempts that reached a server (SENT events). */
  sent: number
  delivered: number
  /** Attempts deferred, and delays reported (DELIVERY_DELAYED events). */
  deferred: number
  /** Bounced at an attempt, hard or soft. */
  bounced: number
  /** Bounces reported afterwards (a DSN), once per recipient. */
  reported_bounced: number
  /** Hard bounces, at an attempt or reported afterwards. */
  hard_bounced: number
  complained: number
  opened: number
  clicked: number
}

/**
 * A sandbox project's counters: its mail has no sending domain. The same counters as
 * SendingCounterTable, per project and hour; analytics reads them, the guardrails never do.
 */
export type SandboxCounterTable = Omit<SendingCounterTable, 'domain_id'>

export interface MigrationTable {
  name: string
  applied_at: number
}

/** A recipient domain's MTA-STS policy (RFC 8461), kept until it expires. */
export interface MtaStsPolicyTable {
  domain: string
  /** The `_mta-sts` TXT record's id the policy was fetched under. */
  policy_id: string
  mode: 'enforce' | 'testing' | 'none'
  /** JSON array of the policy's mx patterns. */
  mx: string
  /** Seconds, as the policy says. */
  max_age: number
  fetched_at: number
  expires_at: number
}

export interface DB {
  projects: ProjectTable
  api_keys: ApiKeyTable
  contacts: ContactTable
  events: EventTable
  domains: DomainTable
  templates: TemplateTable
  emails: EmailTable
  email_contents: EmailContentTable
  relay_bounce_notices: RelayBounceNoticeTable
  deliveries: DeliveryTable
  email_events: EmailEventTable
  suppressions: SuppressionTable
  idempotency_keys: IdempotencyKeyTable
  inbound_reports: InboundReportTable
  received_reports: ReceivedReportTable
  segments: SegmentTable
  segment_members: SegmentMemberTable
  segment_memberships: SegmentMembershipTable
  book_opt_ins: BookOptInTable
  signup_forms: SignupFormTable
  campaigns: CampaignTable
  campaign_recipients: CampaignRecipientTable
  contact_imports: ContactImportTable
  contact_import_parts: ContactImportPartTable
  workflows: WorkflowTable
  workflow_executions: WorkflowExecutionTable
  workflow_execution_steps: WorkflowExecutionStepTable
  workflow_cursors: WorkflowCursorTable
  webhooks: WebhookTable
  webhook_deliveries: WebhookDeliveryTable
  delivery_sites: DeliverySiteTable
  delivery_site_domains: DeliverySiteDomainTable
  server_settings: ServerSettingTable
  dmarc_reports: DmarcReportTable
  dmarc_rows: DmarcRowTable
  mta_sts_policies: MtaStsPolicyTable
  server_checks: ServerCheckTable
  sending_counters: SendingCounterTable
  sandbox_counters: SandboxCounterTable
  migrations: MigrationTable
  leases: LeaseTable
  rate_limits: RateLimitTable
  accounts: AccountTable
  account_sessions: AccountSessionTable
  project_members: ProjectMemberTable
  project_invitations: ProjectInvitationTable
  account_totp: AccountTotpTable
  account_recovery_codes: AccountRecoveryCodeTable
  received_report_projects: ReceivedReportProjectTable
}

/** A database handle: the whole database, or one transaction of it. Services take this first. */
export type Db = Kysely<DB>
