import { randomBytes } from 'node:crypto'

/** Time-ordered unique id (UUIDv7): sorts by creation, so keyset pagination can use it. */
export const newId = (): string => Bun.randomUUIDv7()

/** `bytes` of cryptographic randomness, URL-safe base64 without padding. */
export const randomToken = (bytes: number): string => randomBytes(bytes).toString('base64url')

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export const isUuid = (value: string): boolean => UUID.test(value)
