import { sql, type RawBuilder } from 'kysely'

/** The domain part of an address column (what follows its `@`), in the dialect's string functions. */
export const domainPart = (column: string): RawBuilder<string> => sql<string>`substr(${sql.ref(column)}, instr(${sql.ref(column)}, '@') + 1)`
