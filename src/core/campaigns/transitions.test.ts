import { describe, expect, test } from 'bun:test'
import type { CampaignStatus } from '../../db/schema.ts'
import { AppError } from '../../lib/errors.ts'
import { allows, requireAllowed, resumedStatus, type CampaignAction } from './transitions.ts'

const STATUSES: CampaignStatus[] = ['DRAFT', 'SCHEDULED', 'SENDING', 'PAUSED', 'SENT', 'CANCELLED']

const EXPECTED: Record<CampaignAction, CampaignStatus[]> = {
  edit: ['DRAFT', 'SCHEDULED'],
  delete: ['DRAFT'],
  send: ['DRAFT', 'SCHEDULED'],
  schedule: ['DRAFT', 'SCHEDULED'],
  pause: ['SCHEDULED', 'SENDING'],
  resume: ['PAUSED'],
  cancel: ['SCHEDULED', 'SENDING', 'PAUSED'],
}

describe('campaign transitions', () => {
  for (const [action, from] of Object.entries(EXPECTED) as Array<[CampaignAction, CampaignStatus[]]>) {
    test(`${action} is allowed from ${from.join(', ')} and nothing else`, () => {
      expect(STATUSES.filter((status) => allows(status, action))).toEqual(from)
    })
  }

  test('a sent campaign cannot be sent again, and the refusal is a 409 that says why', () => {
    const error = (() => {
      try {
        requireAllowed('SENT', 'send')
      } catch (e) {
        return e as AppError
      }
    })()
    expect(error).toBeInstanceOf(AppError)
    expect(error!.status).toBe(409)
    expect(error!.message).toContain('SENT')
  })

  test('a paused campaign that never started and whose time is ahead waits for its time again', () => {
    expect(resumedStatus({ started_at: null, scheduled_at: 2_000 }, 1_000)).toBe('SCHEDULED')
  })

  test('a paused campaign that had started, or whose time has come, goes on sending', () => {
    expect(resumedStatus({ started_at: 500, scheduled_at: 2_000 }, 1_000)).toBe('SENDING')
    expect(resumedStatus({ started_at: null, scheduled_at: 900 }, 1_000)).toBe('SENDING')
    expect(resumedStatus({ started_at: null, scheduled_at: null }, 1_000)).toBe('SENDING')
  })
})
