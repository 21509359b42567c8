import type { Compilable, CompiledQuery } from 'kysely'
import type { Db } from './schema.ts'

const NAME = Symbol('parameter name')

interface Placeholder {
  readonly [NAME]: string
}

const isPlaceholder = (value: unknown): value is Placeholder =>
  typeof value === 'object' && value !== null && NAME in value

/**
 * A query of fixed shape, built and compiled by Kysely once and then run with new arguments.
 * Building and compiling costs more than SQLite takes to run a small query, which matters on the
 * hottest routes. `build` receives stand-ins for the arguments: it may put them wherever a value
 * goes, but must not look inside them or choose the query's shape by them.
 */
export function prepared<Args extends object, Row>(build: (db: Db, args: Args) => Compilable<Row>) {
  let compiled: { query: CompiledQuery<Row>; slots: Array<Placeholder | unknown> } | undefined
  return async (db: Db, args: Args): Promise<Row[]> => {
    if (!compiled) {
      const standIns = new Proxy({} as Args, { get: (_, name) => ({ [NAME]: String(name) }) })
      const query = build(db, standIns).compile()
      compiled = { query, slots: [...query.parameters] }
    }
    const { query, slots } = compiled
    const parameters = slots.map((slot) => (isPlaceholder(slot) ? (args as Record<string, unknown>)[slot[NAME]] : slot))
    return (await db.executeQuery<Row>({ ...query, parameters })).rows
  }
}
