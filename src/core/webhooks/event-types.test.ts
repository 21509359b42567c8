import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { checkEvents, EMAIL_EVENT_TYPES, EVENT_TYPES } from './event-types.ts'

const refusal = (events: string[]) => {
  try {
    checkEvents(events)
  } catch (error) {
    if (error instanceof AppError) return error
  }
  throw new Error('expected a refusal')
}

describe('the event types a webhook asks for', () => {
  test('are kept in the order given, each once', () => {
    expect(checkEvents(['email.sent', 'contact.created', 'email.sent'])).toEqual(['email.sent', 'contact.created'])
  })

  test('"*" stands for all, and makes the others given beside it say nothing more', () => {
    expect(checkEvents(['*'])).toEqual(['*'])
    expect(checkEvents(['email.sent', '*'])).toEqual(['*'])
  })

  test('must not be empty', () => {
    const error = refusal([])
    expect(error.status).toBe(422)
    expect(error.details.errors).toEqual([{ field: 'events', message: 'give at least one event type, or "*" for all' }])
  })

  test('an unknown type is refused by name, and the refusal lists the known ones', () => {
    const error = refusal(['email.sent', 'email.send'])
    expect(error.message).toContain('"email.send" is not an event type')
    expect(error.message).toContain('campaign.sent')
  })

  test('types are matched exactly: case and wildcards within a name are not', () => {
    refusal(['Email.Sent'])
    refusal(['email.*'])
  })
})

describe('email statuses', () => {
  test('each is an event type but SCHEDULED and CANCELLED, which are none', () => {
    expect(EMAIL_EVENT_TYPES.SCHEDULED).toBeUndefined()
    expect(EMAIL_EVENT_TYPES.CANCELLED).toBeUndefined()
    for (const type of Object.values(EMAIL_EVENT_TYPES)) expect(EVENT_TYPES).toContain(type!)
    expect(Object.keys(EMAIL_EVENT_TYPES)).toHaveLength(EVENT_TYPES.filter((type) => type.startsWith('email.')).length)
  })
})
