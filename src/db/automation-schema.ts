import type { Claimable } from './cluster-schema.ts'
import type { Generated } from 'kysely'

/*
 * The tables of audiences and automation: segments, contact imports, campaigns, workflows and
 * webhooks. Their conventions are schema.ts's (0/1 booleans, epoch-ms times); it gathers them
 * into the database type.
 */

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

/** A contact waiting to confirm its place in a contact book, and once it has, its consent. */
export interface BookOptInTable {
  id: string
  project_id: number
  segment_id: string
  contact_id: string
  email_id: string | null
  requested_at: number
  confirmed_at: number | null
  method: string | null
  client_ip: string | null
  user_agent: string | null
  /** JSON: {book, subject} */
  agreed_to: string | null
}

/** A hosted sign-up form: who sends it is listed in its book or static segment. */
export interface SignupFormTable {
  id: string
  project_id: number
  segment_id: string
  name: string
  /** JSON: FormField[] */
  fields: string
  /** JSON: FormPage */
  page: string
  enabled: number
  created_at: number
  updated_at: number
}

/** Who was in a tracked segment (DYNAMIC or STATIC) at its last evaluation. */
export interface SegmentMembershipTable {
  segment_id: string
  contact_id: string
  entered_at: number
}

export type AudienceType = 'ALL' | 'SEGMENT' | 'FILTERED'
export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'PAUSED' | 'SENT' | 'CANCELLED'

export interface CampaignTable extends Claimable {
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
/** A part of an import's upload, kept until the import ends (migration 0027). */
export interface ContactImportPartTable {
  import_id: string
  part: number
  bytes: Uint8Array
}

export interface ContactImportTable extends Claimable {
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
  /** JSON: the column mapping the upload came with, column name to target; null reads the header as named. */
  mapping: Generated<string | null>
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

export interface WorkflowExecutionTable extends Claimable {
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
  /** PostgreSQL's commit order of the last row read (src/db/event-cursors.ts); '0' on SQLite. */
  last_order: Generated<string>
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
export interface WebhookDeliveryTable extends Claimable {
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
  /** The beginning of the endpoint's answer to the last call (RESPONSE_KEPT characters at most). */
  last_response_body: Generated<string | null>
  created_at: number
  updated_at: number
}
