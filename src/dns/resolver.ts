import { randomInt } from 'node:crypto'
import { connect } from 'node:net'
import DNS from 'dns2'
import { DnsUnavailableError, type DnsAnswer, type DnsRecord, type RecordType, type Resolver } from '../lib/dns.ts'

export interface NameServer {
  host: string
  port: number
}

const { Packet } = DNS as unknown as { Packet: any }
const TYPE_NAMES: Record<number, RecordType> = Object.fromEntries(
  (['A', 'AAAA', 'MX', 'TXT', 'NS', 'SOA', 'CNAME', 'PTR'] as const).map((name) => [Packet.TYPE[name], name]),
)
const RCODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(Packet.RCODE as Record<string, number>).map(([name, code]) => [code, name]),
)

/**
 * A stub resolver over dns2: asks each configured server in turn over UDP, repeats over TCP when
 * the answer is truncated, and gives up on a server after `timeoutMs`.
 */
export function createResolver(servers: readonly NameServer[], timeoutMs: number): Resolver {
  async function ask(name: string, type: RecordType): Promise<DnsAnswer> {
    let lastError: unknown
    for (const server of servers) {
      try {
        return toAnswer(await queryServer(server, name, type, timeoutMs))
      } catch (error) {
        lastError = error
      }
    }
    throw new DnsUnavailableError(
      `No DNS server answered ${type} ${name} within ${timeoutMs} ms (${(lastError as Error)?.message ?? 'no servers'})`,
    )
  }

  return {
    /** The answer, its CNAMEs followed when the server left the chain unfinished. */
    async query(name, type) {
      const chain = [name.toLowerCase().replace(/\.$/, '')]
      let answer = await ask(name, type)
      const records = [...answer.answers]
      for (;;) {
        const alias = aliasChain(answer, type, chain.at(-1)!)
        if (!alias) break
        const path = [...chain, ...alias.path.slice(1)]
        const loops = alias.loops || chain.includes(alias.end)
        if (loops) return { ...answer, answers: records, rcode: 'SERVFAIL', problem: `CNAME loop (${path.join(' -> ')})` }
        if (path.length > MAX_CNAME_CHAIN) return { ...answer, answers: records, rcode: 'SERVFAIL', problem: `CNAME chain longer than ${MAX_CNAME_CHAIN} (${path.join(' -> ')})` }
        chain.push(...alias.path.slice(1))
        answer = await ask(alias.end, type)
        records.push(...answer.answers)
      }
      return { ...answer, answers: records }
    },
  }
}

/** CNAMEs followed at most (RFC 1034 leaves it to the resolver; 8 is what BIND and Unbound allow about). */
const MAX_CNAME_CHAIN = 8

/**
 * The CNAME chain of an answer that holds no record of the asked type, from `owner` on: where it
 * ends (to be asked next), or that it loops. Undefined when the answer is whole.
 */
function aliasChain(answer: DnsAnswer, type: RecordType, owner: string): { end: string; path: string[]; loops: boolean } | undefined {
  if (type === 'CNAME' || answer.rcode !== 'NOERROR' || answer.answers.some((r) => r.type === type)) return undefined
  const aliases = new Map(answer.answers.filter((r) => r.type === 'CNAME').map((r) => [r.name.replace(/\.$/, ''), r.value]))
  const path = [owner]
  while (aliases.has(path.at(-1)!)) {
    const next = aliases.get(path.at(-1)!)!
    if (path.includes(next)) return { end: next, path: [...path, next], loops: true }
    path.push(next)
  }
  return path.length === 1 ? undefined : { end: path.at(-1)!, path, loops: false }
}

async function queryServer(server: NameServer, name: string, type: RecordType, timeoutMs: number) {
  const udp = (DNS as any).UDPClient({ dns: server.host, port: server.port, timeout: timeoutMs, retryOverTCP: false })
  const response = await udp(name, type)
  return response.header.tc ? queryTcp(server, name, type, timeoutMs) : response
}

/** One query over TCP (RFC 1035 4.2.2: two-byte length, then the message), bounded in time. */
function queryTcp(server: NameServer, name: string, type: RecordType, timeoutMs: number): Promise<any> {
  const query = new Packet()
  query.header.id = randomInt(0x10000)
  query.header.rd = 1
  query.questions.push({ name, type: Packet.TYPE[type], class: Packet.CLASS.IN })
  const message: Buffer = query.toBuffer()
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port })
    let received = Buffer.alloc(0)
    const fail = (error: Error) => {
      socket.destroy()
      reject(error)
    }
    socket.setTimeout(timeoutMs, () => fail(new Error(`TCP query timed out after ${timeoutMs} ms`)))
    socket.on('error', fail)
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from([message.length >> 8, message.length & 0xff]), message])))
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return
      socket.destroy()
      try {
        resolve(Packet.parse(received.subarray(2, 2 + received.readUInt16BE(0))))
      } catch (error) {
        reject(error)
      }
    })
    socket.on('end', () => fail(new Error('TCP connection closed before a whole answer')))
  })
}

function toAnswer(response: any): DnsAnswer {
  return {
    rcode: RCODE_NAMES[response.header.rcode] ?? `RCODE${response.header.rcode}`,
    answers: toRecords(response.answers),
    authorities: toRecords(response.authorities),
  }
}

function toRecords(resources: any[] = []): DnsRecord[] {
  return resources.flatMap((r) => {
    const type = TYPE_NAMES[r.type]
    if (!type) return []
    const record: DnsRecord = { name: String(r.name).toLowerCase(), type, ttl: r.ttl ?? 0, value: recordValue(type, r) }
    if (type === 'MX') record.priority = r.priority
    return [record]
  })
}

function recordValue(type: RecordType, r: any): string {
  switch (type) {
    case 'A':
    case 'AAAA':
      return r.address
    case 'MX':
      return String(r.exchange).toLowerCase()
    case 'TXT':
      return Array.isArray(r.data) ? r.data.join('') : String(r.data)
    case 'NS':
      return String(r.ns).toLowerCase()
    case 'CNAME':
    case 'PTR':
      return String(r.domain).toLowerCase().replace(/\.$/, '')
    case 'SOA':
      return String(r.primary).toLowerCase()
  }
}
