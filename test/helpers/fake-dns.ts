import DNS from 'dns2'

const { Packet } = DNS as any

export type FakeRecord =
  | { type: 'A' | 'AAAA'; address: string }
  | { type: 'MX'; exchange: string; priority: number }
  | { type: 'TXT'; data: string | string[] }
  | { type: 'NS'; ns: string }
  | { type: 'CNAME'; domain: string }

/** How a name behaves: its records, or a failure mode. */
export type Behaviour = { records: FakeRecord[] } | { servfail: true } | { silent: true }

/**
 * An authoritative DNS server for tests: dns2 on 127.0.0.1, UDP and TCP on one port (so that a
 * truncated UDP answer can be asked again over TCP). Names not in the zone are NXDOMAIN, names in
 * it without records of the asked type are NOERROR with no answer.
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

  async start(): Promise<this> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const server = DNS.createServer({ udp: true, tcp: true, handle: (request: any, send: any) => this.answer(request, send) } as any)
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

  private answer(request: any, send: (response: any) => void) {
    const [question] = request.questions
    const name = String(question.name).toLowerCase()
    const typeName = Object.keys(Packet.TYPE).find((key) => Packet.TYPE[key] === question.type) ?? String(question.type)
    this.queries.push({ name, type: typeName })
    const response = Packet.createResponseFromRequest(request)
    const behaviour = this.zone.get(name)
    if (behaviour && 'silent' in behaviour) return
    if (!behaviour) response.header.rcode = Packet.RCODE.NXDOMAIN
    else if ('servfail' in behaviour) response.header.rcode = Packet.RCODE.SERVFAIL
    else {
      for (const record of behaviour.records.filter((r) => r.type === typeName)) {
        response.answers.push({ ...record, name: question.name, type: Packet.TYPE[record.type], class: Packet.CLASS.IN, ttl: 300 })
      }
    }
    send(response)
  }
}
