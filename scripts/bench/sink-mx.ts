// A receiving MX for scripts/bench/delivery.ts, run as its own process: smtp-server on 127.0.0.1,
// accepting every message. It checks that each one carries an rsa-sha256 DKIM-Signature of the
// expected domain, verifies every Nth one in full with mailauth (keys looked up in the given DNS
// server) and counts recipients seen twice. On stdout, JSON lines: {listening: port} once;
// {received, at} every 250 ms while messages arrive and at once when the expected count is reached
// (`at` is Date.now() of that message); on SIGTERM, after pending verifications, the summary.
//   bun scripts/bench/sink-mx.ts --dns 127.0.0.1:5353 --domain sender.example.com --expect 20000
//     [--verify-every 100] [--starttls]
import { Resolver } from 'node:dns/promises'
import { parseArgs } from 'node:util'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { SMTPServer } from 'smtp-server'

const { values: options } = parseArgs({
  options: {
    dns: { type: 'string' },
    domain: { type: 'string', default: 'sender.example.com' },
    expect: { type: 'string', default: '0' },
    'verify-every': { type: 'string', default: '100' },
    starttls: { type: 'boolean', default: false },
  },
})
const expected = Number(options.expect)
const domainTag = new RegExp(`[; ]d=${options.domain!.replace(/\./g, '\\.')}\\s*(;|$)`, 'i')
const verifyEvery = Number(options['verify-every'])
const resolver = new Resolver({ timeout: 2000, tries: 2 })
if (options.dns) resolver.setServers([options.dns])

const stats = {
  received: 0,
  bytes: 0,
  /** Messages with a DKIM-Signature header with a=rsa-sha256 and d= the sending domain. */
  rsaSigned: 0,
  /** ...and with an ed25519-sha256 one too. */
  ed25519Signed: 0,
  duplicates: 0,
  connections: 0,
  maxConnections: 0,
  verified: { pass: 0, fail: 0, failures: [] as string[] },
}
const recipients = new Set<string>()
const verifications: Promise<void>[] = []
let open = 0

/** The unfolded DKIM-Signature header values of a message. */
function dkimHeaders(raw: Buffer): string[] {
  const end = raw.indexOf('\r\n\r\n')
  const head = raw.subarray(0, end < 0 ? raw.length : end).toString('latin1').replace(/\r\n[ \t]+/g, ' ')
  return head.split('\r\n').filter((line) => /^dkim-signature:/i.test(line))
}

function check(raw: Buffer) {
  const signatures = dkimHeaders(raw)
  const by = (algorithm: string) => signatures.some((s) => new RegExp(`[; :]a=${algorithm}\\s*(;|$)`).test(s) && domainTag.test(s))
  if (by('rsa-sha256')) stats.rsaSigned++
  if (by('ed25519-sha256')) stats.ed25519Signed++
  if (verifyEvery > 0 && stats.received % verifyEvery === 1 % verifyEvery) verifications.push(verify(raw))
}

async function verify(raw: Buffer) {
  try {
    // Bun's resolveTxt answers each string of a multi-string TXT record as a record of its own
    // (Node's answers [[s1, s2]]): a key record is one record, so the strings are joined back.
    const keyRecord = async (name: string) => [[(await resolver.resolveTxt(name)).flat().join('')]]
    const result = await dkimVerify(raw, { resolver: keyRecord } as never)
    const outcomes = result.results.map((r: any) => `${r.algo}:${r.status?.result}${r.status?.comment ? ` (${r.status.comment})` : ''}`)
    const ok = outcomes.length > 0 && outcomes.every((o: string) => o.startsWith(o.split(':')[0] + ':pass')) && outcomes.some((o: string) => o.startsWith('rsa-sha256'))
    if (ok) stats.verified.pass++
    else {
      stats.verified.fail++
      if (stats.verified.failures.length < 5) stats.verified.failures.push(outcomes.join(' ') || 'no signature')
    }
  } catch (error) {
    stats.verified.fail++
    if (stats.verified.failures.length < 5) stats.verified.failures.push(String(error))
  }
}

const say = (line: object) => process.stdout.write(JSON.stringify(line) + '\n')

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: options.starttls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
  logger: false,
  size: 50 * 1024 * 1024,
  maxClients: 1000,
  onConnect(_session, callback) {
    stats.connections++
    stats.maxConnections = Math.max(stats.maxConnections, ++open)
    callback()
  },
  onClose() {
    open--
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => {
      const raw = Buffer.concat(chunks)
      stats.received++
      stats.bytes += raw.length
      for (const to of session.envelope.rcptTo) {
        if (recipients.has(to.address)) stats.duplicates++
        else recipients.add(to.address)
      }
      check(raw)
      if (stats.received === expected) say({ received: stats.received, at: Date.now() })
      callback()
    })
  },
})
server.on('error', (error) => process.stderr.write(`sink-mx: ${error}\n`))

let reported = 0
setInterval(() => {
  if (stats.received !== reported && stats.received !== expected) say({ received: stats.received, at: Date.now() })
  reported = stats.received
}, 250).unref()

process.on('SIGTERM', async () => {
  await Promise.all(verifications)
  const { received, bytes, ...rest } = stats
  say({ summary: { received, meanBytes: Math.round(bytes / Math.max(1, received)), ...rest } })
  server.close(() => process.exit(0))
  setTimeout(() => process.exit(0), 1000).unref()
})

server.listen(0, '127.0.0.1', () => {
  const address = server.server.address()
  say({ listening: typeof address === 'object' && address ? address.port : 0 })
})
