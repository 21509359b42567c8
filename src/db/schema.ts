import type { Generated, Kysely } from 'kysely'

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

export interface DomainTable {
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
  open_tracking: Generated<number>
  click_tracking: Generated<number>
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
  created_at: number
  updated_at: number
}

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

/** `paused`: held by a paused campaign; never claimed until the campaign resumes. */
export type DeliveryState = 'scheduled' | 'queued' | 'sending' | 'deferred' | 'paused' | 'delivered' | 'bounced' | 'failed' | 'cancelled' | 'suppressed'

export interface DeliveryTable {
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
  reason: 'hard_bounce' | 'complaint' | 'manual'
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
  /** What identifies one report about one delivery. */
  fingerprint: string
  created_at: number
}

export type SegmentType = 'DYNAMIC' | 'STATIC'

export interface SegmentTable {
  id: string
  project_id: number
  name: string
  description: string | null
  type: SegmentType
  /** JSON condition tree; DYNAMIC segments only. */
  condition: string | null
  track_membership: Generated<number>
  /** JSON: what a contact book adds to a STATIC segment (emoji, properties). */
  meta: string | null
  created_at: number
  updated_at: number
}

/** The listed members of a STATIC segment (or contact book). */
export interface SegmentMemberTable {
  segment_id: string
  contact_id: string
  created_at: number
}

/** Who was in a tracked segment (DYNAMIC or STATIC) at its last evaluation. */
export interface SegmentMembershipTable {
  segment_id: string
  contact_id: string
  entered_at: number
}

export type AudienceType = 'ALL' | 'SEGMENT' | 'FILTERED'
export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'PAUSED' | 'SENT' | 'CANCELLED'

export interface CampaignTable {
  id: string
  project_id: number
  name: string
  description: string | null
  subject: string
  html: string | null
  /** useSend's content, kept as given: the text part when there is no html. */
  content: string | null
  preview_text: string | null
  from_address: string
  from_name: string | null
  /** JSON lists of addresses. */
  reply_to: string
  cc: string
  bcc: string
  audience_type: AudienceType
  segment_id: string | null
  /** JSON condition tree: FILTERED audiences. */
  audience_condition: string | null
  status: CampaignStatus
  scheduled_at: number | null
  started_at: number | null
  sent_at: number | null
  batch_size: number
  batch_window_minutes: number
  /** The last contact id read into recipients; null before the first chunk. */
  listed_through: string | null
  /** 1 once every member of the audience is a recipient. */
  listed: Generated<number>
  /** The last contact id handed to the queue. */
  handed_through: string | null
  batch_started_at: number | null
  /** Recipients handed in the current batch. */
  batch_handed: Generated<number>
  /** Why sending stopped, when it stopped on its own (the sender's domain lost its verification). */
  error: string | null
  total: Generated<number>
  sent: Generated<number>
  delivered: Generated<number>
  opened: Generated<number>
  clicked: Generated<number>
  bounced: Generated<number>
  hard_bounced: Generated<number>
  complained: Generated<number>
  unsubscribed: Generated<number>
  created_at: number
  updated_at: number
}

export type RecipientState = 'listed' | 'queued' | 'skipped'

/** One contact a campaign goes to; (campaign_id, contact_id) is unique. */
export interface CampaignRecipientTable {
  campaign_id: string
  contact_id: string
  state: RecipientState
  email_id: string | null
  sent_at: number | null
  delivered_at: number | null
  opened_at: number | null
  clicked_at: number | null
  bounced_at: number | null
  complained_at: number | null
  unsubscribed_at: number | null
  created_at: number
}

export type ImportStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED'

/** A contacts CSV imported in the background, chunk by chunk. */
export interface ContactImportTable {
  id: string
  project_id: number
  status: ImportStatus
  file_name: string | null
  /** The stored upload, relative to the data directory. */
  file_path: string
  bytes_total: number
  /** Where the next chunk starts: its byte offset and physical line (0 before the first chunk). */
  bytes_processed: Generated<number>
  next_line: Generated<number>
  processed_rows: Generated<number>
  created_count: Generated<number>
  updated_count: Generated<number>
  failed_count: Generated<number>
  /** JSON: the first failed rows, {line, message}. */
  errors: Generated<string>
  /** Why the whole import failed. */
  error: string | null
  created_at: number
  updated_at: number
  finished_at: number | null
}

export interface WorkflowTable {
  id: string
  project_id: number
  name: string
  description: string | null
  enabled: Generated<number>
  trigger_type: 'EVENT' | 'MANUAL' | 'SCHEDULE'
  /** JSON: the checked trigger configuration. */
  trigger_config: string
  allow_reentry: Generated<number>
  /** JSON: the checked steps; the first is the entry. */
  steps: string
  /** Sealed: signs the requests of its WEBHOOK steps. */
  signing_secret: string
  next_tick_at: number | null
  tick_at: number | null
  tick_cursor: string | null
  created_at: number
  updated_at: number
}

export interface WorkflowExecutionTable {
  id: string
  workflow_id: string
  project_id: number
  contact_id: string
  state: 'RUNNING' | 'WAITING' | 'COMPLETED' | 'EXITED' | 'FAILED' | 'CANCELLED'
  current_step: string | null
  next_run_at: number | null
  /** Since when the run has been on its current step. */
  step_since: number
  /** WAIT_FOR_EVENT: the event awaited. */
  wait_event: string | null
  /** JSON {name, data, at}: what started the run. */
  trigger: string
  version: Generated<number>
  error: string | null
  created_at: number
  updated_at: number
  finished_at: number | null
}

export interface WorkflowExecutionStepTable {
  id: Generated<number>
  execution_id: string
  step_id: string
  type: string
  outcome: string
  /** JSON: what the step did (the email sent, the response, the error). */
  detail: string | null
  at: number
}

export interface WorkflowCursorTable {
  source: string
  last_id: number
}

export interface WebhookTable {
  id: string
  project_id: number
  url: string
  /** JSON: the event types it receives; ["*"] for all. */
  events: string
  enabled: Generated<number>
  /** Why the dispatcher disabled it; null otherwise. */
  disabled_reason: string | null
  /** Sealed: signs its calls. */
  signing_secret: string
  /** Sealed: the secret before the last rotation, signing too until `previous_secret_until`. */
  previous_secret: string | null
  previous_secret_until: number | null
  /** Failed calls since the last success. */
  consecutive_failures: Generated<number>
  created_at: number
  updated_at: number
}

/** `paused`: waits while its webhook is disabled. */
export type WebhookDeliveryState = 'pending' | 'paused' | 'delivered' | 'failed'

/** One event for one webhook, called until it succeeds or its retries run out. */
export interface WebhookDeliveryTable {
  id: string
  webhook_id: string
  /** The payload's id and x-mailstead-id: the same for every webhook and attempt. */
  event_id: string
  type: string
  /** The body, exactly as signed. */
  payload: string
  state: WebhookDeliveryState
  attempts: Generated<number>
  /** When due; while a call is under way, the end of its lease. Null once finished or paused. */
  next_attempt_at: number | null
  last_attempt_at: number | null
  last_status: number | null
  last_error: string | null
  last_duration_ms: number | null
  created_at: number
  updated_at: number
}

export interface MigrationTable {
  name: string
  applied_at: number
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
  deliveries: DeliveryTable
  email_events: EmailEventTable
  suppressions: SuppressionTable
  idempotency_keys: IdempotencyKeyTable
  inbound_reports: InboundReportTable
  segments: SegmentTable
  segment_members: SegmentMemberTable
  segment_memberships: SegmentMembershipTable
  campaigns: CampaignTable
  campaign_recipients: CampaignRecipientTable
  contact_imports: ContactImportTable
  workflows: WorkflowTable
  workflow_executions: WorkflowExecutionTable
  workflow_execution_steps: WorkflowExecutionStepTable
  workflow_cursors: WorkflowCursorTable
  webhooks: WebhookTable
  webhook_deliveries: WebhookDeliveryTable
  migrations: MigrationTable
}

/** A database handle: the whole database, or one transaction of it. Services take this first. */
export type Db = Kysely<DB>
