import DNS from 'dns2'

const { Packet } = DNS as any

export type FakeRecord =
  | { type: 'A' | 'AAAA'; address: string }
  | { type: 'MX'; exchange: string; priority: number }
  | { type: 'TXT'; data: string | string[] }
  | { type: 'NS'; ns: string }
  | { type: 'CNAME'; domain: string }
  | { type: 'PTR'; domain: string }

/**
 * How a server misbehaves, as real ones do: REFUSED and SERVFAIL answers, no answer at all,
 * bytes that are not a DNS message, a UDP answer marked truncated whose TCP retry is closed, or
 * an answer whose record is of another type than the one asked for.
 */
export type Failure = 'refused' | 'servfail' | 'silent' | 'malformed' | 'truncated' | 'wrong-type'

/**
 * How a name behaves: its records (and, optionally, a failure for some query types only), or a
 * failure for every type.
 */
export type Behaviour =
  | { records: FakeRecord[]; fail?: Partial<Record<string, Failure>> }
  | { servfail: true }
  | { silent: true }
  | { refused: true }

/**
 * The DNS timeout a test app gives its resolver when it asks a FakeDns. The fake answers from the
 * test's own process, so its answers wait on the same event loop as the app; under a loaded run
 * (the suite's files in parallel) 300 ms was sometimes too short for an answer that came. A
 * server that stays silent costs this much once.
 */
export const FAKE_DNS_TIMEOUT_MS = 1500

/** CNAMEs followed within the zone at most, as a recursive resolver would. */
const MAX_CHAIN = 8

/**
 * A DNS server for tests: dns2 on 127.0.0.1, UDP and TCP on one port (so that a truncated UDP
 * answer can be asked again over TCP). It answers as a recursive resolver does: names not in the
 * zone are NXDOMAIN, names in it without records of the asked type are NOERROR with no answer,
 * and a CNAME is followed through the zone (a loop stops where it repeats, with the chain alone).
 */
export class FakeDns {
  readonly zone = new Map<string, Behaviour>()
  readonly queries: Array<{ name: string; type: string }> = []
  /** TCP connections accepted: how often a client retried a truncated answer over TCP. */
  tcpConnections = 0
  private server: any
  port = 0

  set(name: string, behaviour: Behaviour): this {
    this.zone.set(name.toLowerCase(), behaviour)
    return this
  }

  records(name: string, ...records: FakeRecord[]): this {
    return this.set(name, { records })
  }

  /** Makes queries of `type` for `name` fail as `failure` says; its other records still answer. */
  failing(name: string, type: string, failure: Failure): this {
    const current = this.zone.get(name.toLowerCase())
    const records = current && 'records' in current ? current : { records: [] as FakeRecord[] }
    return this.set(name, { records: records.records, fail: { ...records.fail, [type]: failure } })
  }

  async start(): Promise<this> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const server = DNS.createServer({ udp: true, tcp: true, handle: (request: any, send: any, client: any) => this.answer(request, send, client) } as any)
      server.on('error', () => {})
      const udp = (server as any).servers.udp
      await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve))
      const port = udp.address().port
      const ok = await new Promise<boolean>((resolve) => {
        const tcp = (server as any).servers.tcp
        tcp.on('connection', () => this.tcpConnections++)
        tcp.once('error', () => resolve(false))
        tcp.listen(port, '127.0.0.1', () => resolve(true))
      })
      if (ok) {
        this.server = server
        this.port = port
        return this
      }
      udp.close()
    }
    throw new Error('could not bind UDP and TCP on one port')
  }

  get address(): string {
    return `127.0.0.1:${this.port}`
  }

  async stop(): Promise<void> {
    const { udp, tcp } = this.server.servers
    udp.close()
    await new Promise((resolve) => tcp.close(resolve))
  }

  private failureOf(name: string, type: string): Failure | undefined {
    const behaviour = this.zone.get(name)
    if (!behaviour) return undefined
    if ('servfail' in behaviour) return 'servfail'
    if ('silent' in behaviour) return 'silent'
    if ('refused' in behaviour) return 'refused'
    return behaviour.fail?.[type]
  }

  private answer(request: any, send: (response: any) => void, client: any) {
    const [question] = request.questions
    const name = String(question.name).toLowerCase()
    const typeName = Object.keys(Packet.TYPE).find((key) => Packet.TYPE[key] === question.type) ?? String(question.type)
    this.queries.push({ name, type: typeName })
    const response = Packet.createResponseFromRequest(request)
    // Over UDP the third argument is the sender's address; over TCP, the client's socket.
    const tcpClient = typeof client?.destroy === 'function' ? client : undefined
    const failure = this.failureOf(name, typeName)
    if (failure === 'silent') return
    if (failure === 'malformed' || (failure === 'truncated' && tcpClient)) {
      // Over TCP the connection is closed without an answer: the whole answer never comes.
      return tcpClient ? tcpClient.destroy() : send(Buffer.from('this is not a DNS message'))
    }
    if (failure === 'truncated') {
      response.header.tc = 1
      return send(response)
    }
    if (failure === 'wrong-type') {
      response.answers.push(this.resource(question.name, { type: 'TXT', data: 'not the record you asked for' }))
      return send(response)
    }
    if (failure === 'refused') response.header.rcode = Packet.RCODE.REFUSED
    else if (failure === 'servfail') response.header.rcode = Packet.RCODE.SERVFAIL
    else if (!this.zone.has(name)) response.header.rcode = Packet.RCODE.NXDOMAIN
    else response.answers.push(...this.resolve(question.name, typeName))
    send(response)
  }

  /** The records of `type` at `name`, after the CNAMEs that lead there (the chain first). */
  private resolve(asked: string, type: string): any[] {
    const answers: any[] = []
    const seen = new Set<string>()
    let owner = asked
    for (let hop = 0; hop <= MAX_CHAIN; hop++) {
      const key = owner.toLowerCase()
      const behaviour = this.zone.get(key)
      if (!behaviour || !('records' in behaviour) || seen.has(key)) break
      seen.add(key)
      const found = behaviour.records.filter((r) => r.type === type)
      const alias = behaviour.records.find((r) => r.type === 'CNAME') as { domain: string } | undefined
      if (found.length > 0 || !alias || type === 'CNAME') {
        answers.push(...found.map((record) => this.resource(owner, record)))
        break
      }
      answers.push(this.resource(owner, { type: 'CNAME', domain: alias.domain }))
      owner = alias.domain
    }
    return answers
  }

  private resource(owner: string, record: FakeRecord) {
    return { ...record, name: owner, type: Packet.TYPE[record.type], class: Packet.CLASS.IN, ttl: 300 }
  }
}
