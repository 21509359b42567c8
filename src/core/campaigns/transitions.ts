import type { CampaignStatus } from '../../db/schema.ts'
import { conflict } from '../../lib/errors.ts'

/** What can be done to a campaign, and the statuses each may start from. */
const ALLOWED = {
  edit: ['DRAFT', 'SCHEDULED'],
  delete: ['DRAFT'],
  send: ['DRAFT', 'SCHEDULED'],
  schedule: ['DRAFT', 'SCHEDULED'],
  pause: ['SCHEDULED', 'SENDING'],
  resume: ['PAUSED'],
  cancel: ['SCHEDULED', 'SENDING', 'PAUSED'],
} as const satisfies Record<string, readonly CampaignStatus[]>

export type CampaignAction = keyof typeof ALLOWED

const WHY: Record<CampaignAction, string> = {
  edit: 'only a DRAFT or SCHEDULED campaign can be changed',
  delete: 'only a DRAFT campaign can be deleted',
  send: 'only a DRAFT or SCHEDULED campaign can be sent',
  schedule: 'only a DRAFT or SCHEDULED campaign can be scheduled',
  pause: 'only a SCHEDULED or SENDING campaign can be paused',
  resume: 'only a PAUSED campaign can be resumed',
  cancel: 'only a SCHEDULED, SENDING or PAUSED campaign can be cancelled',
}

export const allows = (status: CampaignStatus, action: CampaignAction): boolean =>
  (ALLOWED[action] as readonly CampaignStatus[]).includes(status)

/** A 409 when `action` is not allowed from `status`. */
export function requireAllowed(status: CampaignStatus, action: CampaignAction): void {
  if (!allows(status, action)) throw conflict(`The campaign is ${status}: ${WHY[action]}`)
}

/**
 * Where a resumed campaign goes: back to waiting for its time if it never started and the time is
 * still ahead, otherwise on with sending.
 */
export const resumedStatus = (campaign: { started_at: number | null; scheduled_at: number | null }, now: number): CampaignStatus =>
  campaign.started_at === null && campaign.scheduled_at !== null && campaign.scheduled_at > now ? 'SCHEDULED' : 'SENDING'
