import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { erasedKey } from './erased.ts'

describe("an erased address's suppression", () => {
  test('is the SHA-256 of its key, named as such, and never the address', () => {
    const key = 'ada@example.net'
    expect(erasedKey(key)).toBe(`sha256:${createHash('sha256').update(key).digest('hex')}`)
    expect(erasedKey(key)).not.toContain('ada')
  })
})
