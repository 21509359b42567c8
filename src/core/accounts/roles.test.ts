import { describe, expect, test } from 'bun:test'
import { mayWrite, ROLES, type WriteFamily } from './roles.ts'

const FAMILIES: WriteFamily[] = ['members', 'delete-project', 'delete-data', 'settings', 'keys', 'domains', 'webhooks', 'sending', 'content']

describe('what each role may write', () => {
  test.each([
    ['owner', FAMILIES],
    ['admin', ['delete-data', 'settings', 'keys', 'domains', 'webhooks', 'sending', 'content']],
    ['member', ['sending', 'content']],
    ['viewer', []],
  ] as const)('%s: %p', (role, allowed) => {
    expect(FAMILIES.filter((family) => mayWrite(role, family))).toEqual([...allowed])
  })

  test('each role may write less than the one above it', () => {
    for (let i = 1; i < ROLES.length; i++) {
      const below = FAMILIES.filter((f) => mayWrite(ROLES[i]!, f))
      expect(below.every((f) => mayWrite(ROLES[i - 1]!, f))).toBe(true)
    }
  })
})
