import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { checkEventName } from './event-name.ts'

describe('checkEventName', () => {
  test.each(['signup', 'order.completed', 'Clicked CTA', 'x', 'e'.repeat(100), 'emails.opened'])('accepts %s', (name) => {
    expect(checkEventName(name)).toBe(name)
  })

  test.each([
    ['', '1 to 100'],
    ['e'.repeat(101), '1 to 100'],
    ['tab\there', 'control characters'],
    ['email.opened', 'reserved'],
    ['Contact.created', 'reserved'],
    ['segment.abc.entry', 'reserved'],
  ])('refuses %j with 422', (name, why) => {
    try {
      checkEventName(name)
      throw new Error('accepted')
    } catch (error) {
      expect(error).toBeInstanceOf(AppError)
      expect((error as AppError).status).toBe(422)
      expect((error as AppError).message).toContain(why)
    }
  })
})
