import { failureOf, recordsOf, type DnsAnswer, type RecordType } from '../lib/dns.ts'

const TYPES = new Set<string>(['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'PTR'])

/** node:dns error codes for the rcodes that are not answers (mailauth tells them apart by these). */
const CODES: Record<string, string> = { NXDOMAIN: 'ENOTFOUND', REFUSED: 'EREFUSED', SERVFAIL: 'ESERVFAIL' }

const failure = (code: string, message: string) => Object.assign(new Error(message), { code })

/**
 * Our resolver in the shape of node:dns's `resolve(name, type)`, for libraries that take one
 * (mailauth's SPF): the records' values, TXT as arrays of strings and MX as { exchange, priority };
 * ENOTFOUND and ENODATA for no answer, ETIMEOUT when no server answered, EREFUSED and ESERVFAIL
 * for a server that would not.
 */
export function nodeStyleResolver(ask: (name: string, type: RecordType) => Promise<DnsAnswer>) {
  return async (name: string, type: string): Promise<unknown[]> => {
    if (!TYPES.has(type)) throw failure('ENODATA', `${type} queries are not made`)
    let answer: DnsAnswer
    try {
      answer = await ask(name, type as RecordType)
    } catch (error) {
      throw failure('ETIMEOUT', (error as Error).message)
    }
    if (answer.rcode !== 'NOERROR') throw failure(CODES[answer.rcode] ?? 'ESERVFAIL', `${type} ${name}: ${failureOf(answer)}`)
    const records = recordsOf(answer, type as RecordType)
    if (records.length === 0) throw failure('ENODATA', `${type} ${name}: no records`)
    return records.map((r) => (type === 'TXT' ? [r.value] : type === 'MX' ? { exchange: r.value, priority: r.priority ?? 0 } : r.value))
  }
}
