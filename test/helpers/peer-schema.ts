import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/*
 * The OpenAPI documents of the peers whose clients Mailstead serves (useSend's, Plunk's) are
 * reference data kept beside the project, never copied into it: tests read them where they are
 * (`MAILSTEAD_PEERS_DIR`, else ../shared/peers beside the checkout, else /work/shared/peers, where
 * this project's machines keep them) and check answers against their response schemas. Where
 * none is found (a fresh machine), the tests that need them are skipped, saying why.
 */

const PEERS_DIR = [process.env.MAILSTEAD_PEERS_DIR, join(import.meta.dir, '..', '..', '..', 'shared', 'peers'), '/work/shared/peers'].find(
  (dir): dir is string => dir !== undefined && existsSync(join(dir, 'usesend-openapi.json')),
)

/** Skip a test with this when the documents are not there. */
export const NO_PEER_DOCUMENTS = PEERS_DIR === undefined
/** What a skipped test's name says. */
export const NEEDS_PEER_DOCUMENTS = "(needs the peers' OpenAPI documents: MAILSTEAD_PEERS_DIR, or ../shared/peers beside the checkout)"

/** The part of OpenAPI 3.0's schema objects that the peers' response schemas use. */
export interface PeerSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean'
  nullable?: boolean
  enum?: unknown[]
  anyOf?: PeerSchema[]
  properties?: Record<string, PeerSchema>
  required?: string[]
  additionalProperties?: boolean | PeerSchema
  items?: PeerSchema
  format?: string
}

const documents = new Map<string, any>()

function peerDocument(file: string): any {
  if (!documents.has(file)) {
    if (PEERS_DIR === undefined) throw new Error(`the peers' documents are missing ${NEEDS_PEER_DOCUMENTS}`)
    documents.set(file, JSON.parse(readFileSync(join(PEERS_DIR, file), 'utf8')))
  }
  return documents.get(file)
}

/** useSend's schema of a JSON answer: `path` as its document names it (without /api), e.g. /v1/emails. */
export function useSendResponse(path: string, method = 'get', status = '200'): PeerSchema {
  const schema = peerDocument('usesend-openapi.json').paths[path]?.[method]?.responses?.[status]?.content?.['application/json']?.schema
  if (!schema) throw new Error(`useSend's document has no JSON ${status} answer for ${method.toUpperCase()} ${path}`)
  return schema
}

/** What in `value` the schema refuses, one line each (`$.data[0].domainId: expected number`); none when it conforms. */
export function schemaErrors(schema: PeerSchema, value: unknown, at = '$'): string[] {
  if (value === null) return schema.nullable || isAnything(schema) ? [] : [`${at}: null is not allowed`]
  if (schema.anyOf) {
    const branches = schema.anyOf.map((branch) => schemaErrors(branch, value, at))
    return branches.some((errors) => errors.length === 0) ? [] : [`${at}: matches none of anyOf (${branches.map((e) => e[0]).join('; ')})`]
  }
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`]
  if (schema.type && !hasType(schema.type, value)) return [`${at}: expected ${schema.type}, got ${JSON.stringify(value)}`]
  if (schema.format === 'date-time' && Number.isNaN(Date.parse(value as string))) return [`${at}: not a date-time`]
  if (schema.type === 'array') return (value as unknown[]).flatMap((item, i) => schemaErrors(schema.items ?? {}, item, `${at}[${i}]`))
  if (schema.type === 'object') return objectErrors(schema, value as Record<string, unknown>, at)
  return []
}

function objectErrors(schema: PeerSchema, value: Record<string, unknown>, at: string): string[] {
  const errors = (schema.required ?? []).filter((key) => !(key in value)).map((key) => `${at}.${key}: required`)
  for (const [key, field] of Object.entries(value)) {
    const known = schema.properties?.[key]
    if (known) errors.push(...schemaErrors(known, field, `${at}.${key}`))
    else if (schema.additionalProperties === false) errors.push(`${at}.${key}: not allowed`)
  }
  return errors
}

/** A schema without a type or alternatives (`{nullable: true}` as a branch of anyOf) takes any value. */
const isAnything = (schema: PeerSchema) => !schema.type && !schema.anyOf && !schema.enum

function hasType(type: NonNullable<PeerSchema['type']>, value: unknown): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value)
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return typeof value === type
  }
}
