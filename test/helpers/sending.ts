import type { World } from './world.ts'

export const SECRET = 'test-secret-test-secret-test-secret'

/** How many rows a send can write: a bad request must leave every count as it was. */
export async function rowCounts(w: World) {
  const count = async (table: 'emails' | 'deliveries' | 'email_events' | 'contacts' | 'idempotency_keys') =>
    Number((await w.t.app.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
  return {
    emails: await count('emails'),
    deliveries: await count('deliveries'),
    events: await count('email_events'),
    contacts: await count('contacts'),
    idempotencyKeys: await count('idempotency_keys'),
  }
}

/** The flags that point the CLI at a world's data directory and settings. */
export const cliFlags = (w: World) => ['--data-dir', w.t.dataDir, ...w.t.databaseFlags, '--secret', SECRET, '--hostname', 'mx.mailstead.test', '--dns-servers', w.dns.address]

/** The last message the fake MX accepted for this recipient, parsed. */
export function receivedBy(w: World, recipient: string): MimePart & { raw: string } {
  const message = w.mx.received.findLast((m) => m.to.includes(recipient))
  if (!message) throw new Error(`nothing received for ${recipient}`)
  const raw = message.raw.toString('latin1')
  return { ...parseMime(raw), raw }
}

/** Messages the fake MX accepted for this recipient. */
export const receivedCount = (w: World, recipient: string) => w.mx.received.filter((m) => m.to.includes(recipient)).length

/** The email as GET /api/v1/emails/{id} answers it. */
export const emailOf = async (w: World, id: string) => (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body

export const statusesOf = (email: { emailEvents: Array<{ status: string }> }) => email.emailEvents.map((e) => e.status)

/** A domain added to the project but never checked: its status stays NOT_STARTED. */
export async function addUnverifiedDomain(w: World, name: string, key = w.key) {
  const created = await w.t.request('POST', '/api/v1/domains', { key, body: { name, region: 'us-east-1' } })
  if (created.status !== 200) throw new Error(`could not add ${name}: ${JSON.stringify(created.body)}`)
  return created.body as { id: number; name: string; status: string }
}

export interface MimePart {
  /** Header names in lower case; values unfolded. A repeated header keeps its first value. */
  headers: Record<string, string>
  /** The decoded body of a leaf part. */
  content: Buffer
  parts: MimePart[]
}

/** Just enough MIME for tests: headers, multipart nesting, base64 and quoted-printable bodies. */
export function parseMime(raw: string): MimePart {
  const split = raw.indexOf('\r\n\r\n')
  const head = split < 0 ? raw : raw.slice(0, split)
  const body = split < 0 ? '' : raw.slice(split + 4)
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r\n[ \t]/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] ??= line.slice(colon + 1).trim()
  }
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1]
  if (/^multipart\//i.test(headers['content-type'] ?? '') && boundary) {
    const sections = body.split(`--${boundary}`).slice(1, -1)
    return { headers, content: Buffer.alloc(0), parts: sections.map((s) => parseMime(s.replace(/^\r\n/, '').replace(/\r\n$/, ''))) }
  }
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase()
  const content =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1')
        : Buffer.from(body, 'latin1')
  return { headers, content, parts: [] }
}

/** Every leaf part of a message, depth first. */
export const leavesOf = (part: MimePart): MimePart[] => (part.parts.length === 0 ? [part] : part.parts.flatMap(leavesOf))

/** The decoded text of the first leaf whose Content-Type starts with `type`. */
export const textOf = (part: MimePart, type: string) =>
  leavesOf(part).find((p) => (p.headers['content-type'] ?? '').startsWith(type))?.content.toString('utf8')
