import { createHash, timingSafeEqual } from 'node:crypto'

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex')

/** Compares two strings in time that depends only on their length. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
