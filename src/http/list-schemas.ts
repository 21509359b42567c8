import { t } from 'elysia'
import { DIRECTIONS } from '../db/sorting.ts'
import { oneOf } from './schemas.ts'

/**
 * A list's `sort`: one of the columns it has an index for. Plunk falls back to createdAt on any
 * other value; here another value is a 422 naming `sort` and the values it takes, since a silent
 * fallback would hand back rows in an order the caller did not ask for.
 */
export const sortQuery = <const T extends readonly [string, ...string[]]>(values: T) =>
  t.Optional(oneOf(values, `Sort by ${values.join(', ')}; createdAt when absent. Ties are broken by id, in the same direction`))

export const dirQuery = t.Optional(oneOf(DIRECTIONS, 'Sort direction: asc or desc; desc when absent'))
