import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { checkTrigger, checkWorkflowEvent, nextTick, segmentOfEvent } from './trigger.ts'
import type { TriggerType } from './workflow.ts'

const NOW = Date.parse('2026-11-01T12:00:00Z')

function refusal(type: TriggerType, config: unknown): { field: string; message: string } {
  try {
    checkTrigger(type, config, 'triggerConfig', NOW)
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).status).toBe(422)
    return (error as AppError).details.errors![0]!
  }
  throw new Error('accepted')
}

const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] }

describe('checkTrigger accepts each type of trigger', () => {
  test.each([
    ['EVENT', { eventName: 'signup' }, { eventName: 'signup' }],
    ['EVENT', { eventName: 'email.clicked', condition }, { eventName: 'email.clicked', condition }],
    ['EVENT', { eventName: 'segment.0190f0d8.entry', condition: null }, { eventName: 'segment.0190f0d8.entry' }],
    ['MANUAL', {}, {}],
    ['MANUAL', undefined, {}],
    ['SCHEDULE', { cron: '0 9 * * 1', timezone: 'Europe/Paris' }, { cron: '0 9 * * 1', timezone: 'Europe/Paris' }],
    ['SCHEDULE', { cron: ' 0  9 * * 1 ', timezone: 'america/new_york', segmentId: 's1' }, { cron: '0 9 * * 1', timezone: 'America/New_York', segmentId: 's1' }],
    ['SCHEDULE', { cron: '* * * * *' }, { cron: '* * * * *', timezone: 'UTC' }],
    ['SCHEDULE', { cron: '30 0 9 * * *', timezone: 'UTC' }, { cron: '30 0 9 * * *', timezone: 'UTC' }],
    ['SCHEDULE', { cron: '@daily', timezone: 'UTC' }, { cron: '@daily', timezone: 'UTC' }],
  ] as Array<[TriggerType, unknown, unknown]>)('%s %j', (type, config, expected) => {
    expect(checkTrigger(type, config, 'triggerConfig', NOW)).toEqual(expected as never)
  })
})

describe('checkTrigger refuses with a 422 naming the path', () => {
  test.each([
    ['EVENT', undefined, 'triggerConfig', 'must be an object {eventName, condition?}'],
    ['EVENT', {}, 'triggerConfig.eventName', '1 to 100'],
    ['EVENT', { eventName: 'e'.repeat(101) }, 'triggerConfig.eventName', '1 to 100'],
    ['EVENT', { eventName: 'email.sent' }, 'triggerConfig.eventName', 'email.delivered, email.opened'],
    ['EVENT', { eventName: 'segment.abc' }, 'triggerConfig.eventName', 'segment.<id>.entry'],
    ['EVENT', { eventName: 'contact.unsubscribed' }, 'triggerConfig.eventName', 'contact.* events'],
    ['EVENT', { eventName: 'x', cron: '* * * * *' }, 'triggerConfig.cron', 'is not part of a EVENT trigger'],
    ['EVENT', { eventName: 'x', condition: { logic: 'AND', groups: [] } }, 'triggerConfig.condition.groups', 'list of 1 to 20'],
    ['MANUAL', { eventName: 'x' }, 'triggerConfig.eventName', 'is not part of a MANUAL trigger'],
    ['SCHEDULE', {}, 'triggerConfig.cron', 'must be a cron expression'],
    ['SCHEDULE', { cron: 'every day', timezone: 'UTC' }, 'triggerConfig.cron', 'is not a cron expression'],
    ['SCHEDULE', { cron: '61 * * * *', timezone: 'UTC' }, 'triggerConfig.cron', 'is not a cron expression'],
    ['SCHEDULE', { cron: '0 0 30 2 *', timezone: 'UTC' }, 'triggerConfig.cron', 'never fires'],
    ['SCHEDULE', { cron: '0 0 0 1 1 * 2020', timezone: 'UTC' }, 'triggerConfig.cron', 'never fires'],
    ['SCHEDULE', { cron: '* * * * * *', timezone: 'UTC' }, 'triggerConfig.cron', 'more often than once a minute'],
    ['SCHEDULE', { cron: '*/30 * * * * *', timezone: 'UTC' }, 'triggerConfig.cron', 'more often than once a minute'],
    ['SCHEDULE', { cron: '0,59 0 9 1 1 *', timezone: 'UTC' }, 'triggerConfig.cron', 'more often than once a minute'],
    ['SCHEDULE', { cron: '0 9 * * *', timezone: 'Mars/Olympus' }, 'triggerConfig.timezone', 'there is no time zone Mars/Olympus'],
    ['SCHEDULE', { cron: '0 9 * * *', timezone: 3 }, 'triggerConfig.timezone', 'IANA time zone'],
    ['SCHEDULE', { cron: '0 9 * * *', segmentId: '' }, 'triggerConfig.segmentId', 'id of a segment'],
  ] as Array<[TriggerType, unknown, string, string]>)('%s %j', (type, config, field, message) => {
    const found = refusal(type, config)
    expect(found.field).toBe(field)
    expect(found.message).toContain(message)
  })

  test('a schedule whose only run has passed never fires; judged from the time given', () => {
    expect(checkTrigger('SCHEDULE', { cron: '0 0 0 1 1 * 2027', timezone: 'UTC' }, 'triggerConfig', NOW)).toMatchObject({ cron: '0 0 0 1 1 * 2027' })
    expect(() => checkTrigger('SCHEDULE', { cron: '0 0 0 1 1 * 2027', timezone: 'UTC' }, 'triggerConfig', Date.parse('2027-06-01T00:00:00Z'))).toThrow('never fires')
  })
})

describe('nextTick', () => {
  const weekly = { cron: '0 9 * * 1', timezone: 'Europe/Paris' }

  test('is the next run strictly after the time given, in the time zone of the schedule', () => {
    expect(new Date(nextTick(weekly, NOW)!).toISOString()).toBe('2026-11-02T08:00:00.000Z')
    expect(new Date(nextTick(weekly, Date.parse('2026-11-02T08:00:00Z'))!).toISOString()).toBe('2026-11-09T08:00:00.000Z')
    expect(new Date(nextTick({ cron: '0 9 * * 1', timezone: 'UTC' }, NOW)!).toISOString()).toBe('2026-11-02T09:00:00.000Z')
  })

  test('follows summer time', () => {
    expect(new Date(nextTick({ cron: '0 9 * * *', timezone: 'Europe/Paris' }, Date.parse('2026-07-01T00:00:00Z'))!).toISOString()).toBe('2026-07-01T07:00:00.000Z')
  })

  test('a time within a second of a run still moves past it', () => {
    expect(new Date(nextTick({ cron: '* * * * *', timezone: 'UTC' }, NOW + 999)!).toISOString()).toBe('2026-11-01T12:01:00.000Z')
  })

  test('is null once the schedule has no more runs', () => {
    expect(nextTick({ cron: '0 0 0 1 1 * 2027', timezone: 'UTC' }, Date.parse('2027-01-01T00:00:00Z'))).toBeNull()
  })
})

describe('workflow events', () => {
  test.each(['signup', 'Order Completed', 'email.opened', 'email.complained', 'segment.abc.entry', 'segment.abc.exit'])('%s can start or be awaited', (name) => {
    expect(checkWorkflowEvent(name, 'eventName')).toBe(name)
  })

  test('a segment event names its segment', () => {
    expect(segmentOfEvent('segment.0190f0d8-0000-7000-8000-000000000000.entry')).toBe('0190f0d8-0000-7000-8000-000000000000')
    expect(segmentOfEvent('signup')).toBeUndefined()
  })
})
