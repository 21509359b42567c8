// How much of the peers' APIs Mailstead serves, and answers as their documents say:
// `bun scripts/conformance.ts` prints one JSON line
//   {usesend: {operations, served, validating, byInterface, failing}, plunk: {...}}
// For each operation of useSend's and Plunk's OpenAPI documents (MAILSTEAD_PEERS_DIR, or
// ../shared/peers beside the checkout): is there a route of the same method and path in
// Mailstead's document (useSend's paths under its server's /api, Plunk's at the root, as their
// clients call them), and does a live answer validate? Each served operation is requested once
// from an app in this process (a fresh SQLite database in a temporary directory, fake DNS and MX
// on loopback, nothing leaves the machine) with the peer's example body where it has one, else one
// made from its schema, and the answer is validated with ajv against the peer's schema for that
// status. Where the peer's document and INTERFACE.md disagree, INTERFACE.md wins: such answers
// count as validating by the interface when Mailstead's own document accepts them, and are listed.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { exampleOf } from '../src/http/openapi/examples.ts'
import { operationFor, responseSchemaOf, SchemaChecker, type OpenApiDocument } from '../test/helpers/openapi-document.ts'
import { NO_PEER_DOCUMENTS, NEEDS_PEER_DOCUMENTS } from '../test/helpers/peer-schema.ts'
import { createWorld, type World } from '../test/helpers/world.ts'

const PEERS_DIR = [process.env.MAILSTEAD_PEERS_DIR, join(import.meta.dir, '..', '..', 'shared', 'peers'), '/work/shared/peers'].find(
  (dir) => dir && !NO_PEER_DOCUMENTS && (() => { try { readFileSync(join(dir, 'usesend-openapi.json')); return true } catch { return false } })(),
)
if (!PEERS_DIR) {
  console.error(`no peer documents ${NEEDS_PEER_DOCUMENTS}`)
  process.exit(1)
}

/**
 * Where INTERFACE.md decides otherwise than a peer's document: `peer METHOD path` -> the rule.
 * An answer that the peer's schema refuses but Mailstead's accepts counts for the interface only
 * when its operation is listed here.
 */
const INTERFACE_RULES: Record<string, string> = {
  'plunk GET /contacts': "INTERFACE.md: the page is {contacts, cursor, hasMore, total} (Plunk's document says data)",
  'plunk POST /segments': "INTERFACE.md: groups[].conditions is of an unknown type, present on a group in answers (Plunk's document says object)",
}

interface Peer {
  name: 'usesend' | 'plunk'
  document: OpenApiDocument
  /** Mailstead's path of a peer path. */
  ours: (path: string) => string
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

/** OpenAPI 3.0's `nullable` as JSON Schema says it (ajv refuses it on a schema without a type). */
function withoutNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullable)
  if (!value || typeof value !== 'object') return value
  const { nullable, ...rest } = value as Record<string, unknown>
  const out = Object.fromEntries(Object.entries(rest).map(([key, v]) => [key, key === 'example' || key === 'enum' ? v : withoutNullable(v)]))
  if (nullable === true && typeof out.type === 'string') out.type = [out.type, 'null']
  if (nullable === true && Array.isArray(out.enum)) out.enum = [...out.enum, null]
  return out
}

const peers: Peer[] = [
  { name: 'usesend', document: JSON.parse(readFileSync(join(PEERS_DIR, 'usesend-openapi.json'), 'utf8')), ours: (path) => `/api${path}` },
  { name: 'plunk', document: JSON.parse(readFileSync(join(PEERS_DIR, 'plunk-openapi.json'), 'utf8')), ours: (path) => path },
]

/** The things the paths name, made through Mailstead's own API before the peers' requests. */
interface Fixtures {
  domainId: string
  /** A second domain, for the operations that verify and delete one. */
  spareDomainId: string
  emailId: string
  scheduledEmailId: string
  contactBookId: string
  bookContactId: string
  contactId: string
  campaignId: string
  v1CampaignId: string
  /** A DRAFT v1 campaign for the delete (the other is scheduled by then). */
  v1DraftId: string
}

async function fixtures(w: World): Promise<Fixtures> {
  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await w.t.request(method, path, { key: w.key, body })
    if (answer.status >= 300) throw new Error(`fixture ${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body
  }
  const from = `shop@${w.domain.name}`
  const email = await call('POST', '/api/v1/emails', { to: 'jane@example.net', from, subject: 'Hi', html: '<p>Hi</p>' })
  const later = new Date(Date.now() + 86_400_000).toISOString()
  const scheduled = await call('POST', '/api/v1/emails', { to: 'jane@example.net', from, subject: 'Later', html: '<p>Later</p>', scheduledAt: later })
  const book = await call('POST', '/api/v1/contactBooks', { name: 'Book' })
  const bookContact = await call('POST', `/api/v1/contactBooks/${book.id}/contacts`, { email: 'member@example.net' })
  const contact = await call('POST', '/contacts', { email: 'plunk@example.net' })
  const campaign = await call('POST', '/campaigns', { name: 'C', subject: 'S', body: '<p>B</p>', from, audienceType: 'ALL' })
  const v1Campaign = await call('POST', '/api/v1/campaigns', { name: 'V1', from, subject: 'S', html: '<p>B</p>', contactBookId: book.id })
  const v1Draft = await call('POST', '/api/v1/campaigns', { name: 'V1 draft', from, subject: 'S', html: '<p>B</p>', contactBookId: book.id })
  const spare = await call('POST', '/api/v1/domains', { name: 'spare.example.org', region: 'us-east-1' })
  // Plunk's send may name no sender: the project's default is used.
  await call('PATCH', '/api/v1/project', { defaultSender: from })
  return {
    domainId: String(w.domain.id),
    spareDomainId: String(spare.id),
    v1DraftId: v1Draft.id,
    emailId: email.emailId,
    scheduledEmailId: scheduled.emailId,
    contactBookId: book.id,
    bookContactId: bookContact.contactId,
    contactId: contact.id,
    campaignId: campaign.data.id,
    v1CampaignId: v1Campaign.id,
  }
}

/** The peer's path with its parameters filled from the fixtures. */
function pathFor(peer: Peer, method: string, template: string, f: Fixtures): string {
  const values: Record<string, string> = {
    contactBookId: f.contactBookId,
    contactId: f.bookContactId,
    // The reschedule and cancel of a sent email need one that waits.
    emailId: /cancel$/.test(template) || method === 'patch' ? f.scheduledEmailId : f.emailId,
    campaignId: method === 'delete' ? f.v1DraftId : f.v1CampaignId,
    id: template.startsWith('/v1/domains') ? (method === 'get' ? f.domainId : f.spareDomainId) : template.startsWith('/contacts') ? f.contactId : f.campaignId,
  }
  return peer.ours(template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'none'))
}

let addresses = 0

/** Fields that must name this server's things whatever the example says. */
function localized(body: unknown, w: World, f: Fixtures): unknown {
  if (Array.isArray(body)) return body.map((item) => localized(item, w, f))
  if (!body || typeof body !== 'object') return body
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    if (key === 'from') out[key] = `shop@${w.domain.name}`
    else if (key === 'contactBookId') out[key] = f.contactBookId
    // A new address each time: the examples name one address that an earlier request made.
    else if (key === 'email' && typeof value === 'string') out[key] = `conformance-${++addresses}@example.net`
    else if (key === 'scheduledAt' || key === 'scheduledFor') out[key] = new Date(Date.now() + 3_600_000).toISOString()
    else out[key] = localized(value, w, f)
  }
  return out
}

function requestBody(peer: Peer, operation: any, w: World, f: Fixtures, template: string): unknown {
  const media = operation.requestBody?.content?.['application/json']
  if (!media) return undefined
  const given = media.example ?? (Object.values(media.examples ?? {})[0] as any)?.value
  const made = given ?? exampleOf(media.schema, { components: peer.document.components?.schemas ?? {}, everyProperty: false })
  // A new domain rather than the one the world sends from.
  if (template === '/v1/domains') return { name: 'conformance.example.org', region: 'us-east-1' }
  return localized(made, w, f)
}

/** Deletes after everything else, and actions on a thing after it is read and changed. */
const order = (a: [string, string], b: [string, string]) => rank(a) - rank(b)
const rank = ([method, path]: [string, string]) => (method === 'delete' ? 2 : /pause|resume|cancel|send$/.test(path) ? 1 : 0)

async function conform(peer: Peer, ours: OpenApiDocument, w: World, f: Fixtures) {
  const peerChecker = new SchemaChecker(withoutNullable(peer.document) as OpenApiDocument)
  const ourChecker = new SchemaChecker(ours)
  const operations = Object.entries(peer.document.paths)
    .flatMap(([path, ops]) => Object.keys(ops).filter((m) => METHODS.includes(m)).map((method) => [method, path] as [string, string]))
    .sort(order)
  const result = { operations: operations.length, served: 0, validating: 0, byInterface: [] as string[], failing: [] as string[], notServed: [] as string[] }
  for (const [method, template] of operations) {
    const name = `${method.toUpperCase()} ${template}`
    const ourPath = peer.ours(template)
    const mine = operationFor(ours, method, ourPath)
    if (!mine || mine.template !== ourPath.replace(/\{\w+\}/g, (p) => p) && !sameTemplate(mine.template, ourPath)) {
      result.notServed.push(name)
      continue
    }
    result.served++
    const operation = peer.document.paths[template]![method]
    const answer = await w.t.request(method.toUpperCase(), pathFor(peer, method, template, f), { key: w.key, body: requestBody(peer, operation, w, f, template) })
    const schema = responseSchemaOf(operation, answer.status)
    if (!schema) {
      result.failing.push(`${name}: answered ${answer.status}, which the peer's document does not list (${JSON.stringify(answer.body).slice(0, 160)})`)
      continue
    }
    const errors = peerChecker.errors(withoutNullable(schema), answer.body)
    if (errors.length === 0) {
      result.validating++
      continue
    }
    const rule = INTERFACE_RULES[`${peer.name} ${name}`]
    const ourSchema = responseSchemaOf(mine.operation, answer.status)
    if (rule && ourSchema && ourChecker.errors(ourSchema, answer.body).length === 0) {
      result.validating++
      result.byInterface.push(`${name}: ${rule}`)
    } else result.failing.push(`${name} -> ${answer.status}: ${errors.slice(0, 3).join('; ')}`)
  }
  return result
}

/** The same template with its parameters named differently (/{id} and /{emailId}). */
const sameTemplate = (a: string, b: string) => a.replace(/\{\w+\}/g, '{}') === b.replace(/\{\w+\}/g, '{}')

const w = await createWorld({ settings: { 'rate-limit-per-minute': '100000' } })
try {
  const ours = (await w.t.request('GET', '/swagger/json')).body as OpenApiDocument
  const f = await fixtures(w)
  const report: Record<string, unknown> = {}
  for (const peer of peers) report[peer.name] = await conform(peer, ours, w, f)
  console.log(JSON.stringify(report))
} finally {
  await w.close()
}
