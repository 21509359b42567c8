import { t } from 'elysia'
import type { ContactMatch } from '../core/contacts/index.ts'
import { matchingContactIds } from '../core/contacts/index.ts'
import { contactCondition } from '../core/segments/index.ts'
import type { Db } from '../db/schema.ts'
import { invalid } from '../lib/errors.ts'
import type { HttpDeps } from './deps.ts'
import { booleanQuery, strictObject } from './schemas.ts'

// Which contacts a list, an export or a bulk action is about: a search, the subscription and a
// segment condition (its language over data.<key>, segment.<id> and the rest), or for a bulk
// action a list of ids. The condition is compiled by segments and handed down to contacts,
// which sit below segments and never import them.

const CONDITION_HELP =
  'A segment condition as JSON: {"logic":"AND","groups":[{"filters":[{"field":"data.plan","operator":"equals","value":"pro"}]}]}; ' +
  'fields data.<key>, segment.<id>, email, subscribed, createdAt, event.<name>, email.<status>, with every operator a segment takes'

const search = t.String({ maxLength: 254, description: 'Part of the email address', error: 'must be at most 254 characters', 'x-field': 'search' })

/** The filters of GET /contacts and GET /contacts/export, as query parameters. */
export const filterQuery = {
  subscribed: t.Optional(booleanQuery('subscribed', 'Only subscribed (true) or unsubscribed (false) contacts')),
  search: t.Optional(search),
  condition: t.Optional(t.String({ maxLength: 20000, description: CONDITION_HELP, error: 'must be at most 20000 characters of JSON', 'x-field': 'condition' })),
}

/** The same filters in a bulk action's body, the condition as an object. */
export const FilterBody = strictObject(
  {
    subscribed: t.Optional(t.Boolean({ description: 'Only subscribed (true) or unsubscribed (false) contacts' })),
    search: t.Optional(search),
    condition: t.Optional(t.Unknown({ description: CONDITION_HELP.replace('as JSON', '') })),
  },
  { title: 'ContactFilter', description: 'Every contact of the project that matches all that is given ({} is every contact)' },
)

export interface FilterInput {
  subscribed?: boolean
  search?: string
  /** JSON text in a query, an object in a body. */
  condition?: unknown
}

/** The filter as contacts take it: the condition checked (a 422 naming its field) and compiled. */
export async function contactMatch(db: Db, projectId: number, input: FilterInput, now: number, field = 'condition'): Promise<ContactMatch> {
  const match: ContactMatch = { subscribed: input.subscribed, search: input.search }
  if (input.condition === undefined) return match
  return { ...match, where: await contactCondition(db, projectId, parsed(input.condition, field), now, field) }
}

function parsed(condition: unknown, field: string): unknown {
  if (typeof condition !== 'string') return condition
  try {
    return JSON.parse(condition)
  } catch {
    throw invalid(field, 'is not JSON: give a segment condition as JSON text')
  }
}

/** A bulk action's contacts: ids (up to 1,000) or a filter, exactly one of them. */
export const selectionFields = {
  ids: t.Optional(t.Array(t.String({ maxLength: 64 }), { minItems: 1, maxItems: 1000, description: 'The contacts, by id (ids of no contact of the project are passed over)' })),
  filter: t.Optional(FilterBody),
}

export interface Selection {
  ids?: string[]
  filter?: FilterInput
}

/** What a route is served by: Bun's server, whose idle timeout a long bulk action lifts for its own request. */
export interface Served {
  request: Request
  server: { timeout?(request: Request, seconds: number): void } | null
}

/**
 * Runs `apply` on the selected contacts a chunk at a time, each chunk its own write through the
 * writer, so that a filter over a million contacts holds no transaction for long; answers what
 * `apply` counted and how many contacts were selected. Each chunk is read after the previous one
 * was written, by keyset on id, so contacts that a chunk changes out of the filter are not skipped.
 */
export async function inChunks<P = undefined>(
  deps: Pick<HttpDeps, 'db' | 'writer' | 'clock'>,
  served: Served,
  projectId: number,
  selection: Selection,
  apply: (trx: Db, ids: readonly string[], now: number, prepared: P | undefined) => Promise<number>,
  /** What a chunk needs built before its write transaction (a book's confirmation emails), read outside it. */
  prepare?: (ids: readonly string[], now: number) => Promise<P>,
): Promise<{ changed: number; selected: number }> {
  if ((selection.ids === undefined) === (selection.filter === undefined)) throw invalid('ids', 'give either ids or filter, not both nor neither')
  const now = deps.clock.now()
  const write = async (ids: readonly string[], at: number) => {
    const prepared = await prepare?.(ids, at)
    return deps.writer.run((trx) => apply(trx, ids, at, prepared))
  }
  if (selection.ids) {
    const ids = [...new Set(selection.ids)]
    return { changed: await write(ids, now), selected: ids.length }
  }
  const match = await contactMatch(deps.db, projectId, selection.filter!, now, 'filter.condition')
  // A million contacts take longer than a connection may sit idle (30 s): this one waits for its answer.
  served.server?.timeout?.(served.request, 0)
  let changed = 0
  let selected = 0
  let after = ''
  for (;;) {
    const ids = await matchingContactIds(deps.db, projectId, match, after)
    if (ids.length === 0) return { changed, selected }
    changed += await write(ids, deps.clock.now())
    selected += ids.length
    after = ids.at(-1)!
  }
}
