// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { API_REFUSAL, HEADER_FIELDS, type FieldRule } from '../../src/core/emails/header-fields.ts'
import { asSentence } from '../../src/http/field-sentences.ts'
import type { RawSocket } from '../helpers/raw-socket.ts'
import { queuedId, relaySession, sendMessage } from '../helpers/relay-client.ts'
import { receivedBy, rowCounts } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let socket: RawSocket

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'relay-port': '0' } })
  socket = await relaySession(w.t.app.listeners()!.relay.port!, w.key)
})

afterAll(async () => {
  socket.close()
  await w.close()
})

const FROM = 'ada@sender.example.com'
const titleCase = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
const fields = Object.entries(HEADER_FIELDS) as Array<[string, FieldRule]>
/** A value each field could carry: an address where the field names people, a stranger's unless the rule is about it. */
const valueOf = (name: string) =>
  /from|sender|to|cc|reply/.test(name) ? 'ceo@bank.example' : name === 'date' ? 'Mon, 1 Jan 2024 00:00:00 +0000' : name === 'x-mailstead-track' ? 'none' : 'x'

/** Every HTTP send that takes custom headers, with where its errors name the header. */
const routes: Array<[string, (headers: Record<string, string>) => unknown, string]> = [
  ['/api/v1/emails', (headers) => ({ from: FROM, to: 'jane@example.net', subject: 'Hi', html: '<p>Hi</p>', headers }), 'headers'],
  ['/api/v1/emails/batch', (headers) => [{ from: FROM, to: 'a@example.net', subject: 'Hi', html: '<p>Hi</p>' }, { from: FROM, to: 'jane@example.net', subject: 'Hi', html: '<p>Hi</p>', headers }], '[1].headers'],
  ['/v1/send', (headers) => ({ from: FROM, to: 'jane@example.net', subject: 'Hi', body: '<p>Hi</p>', headers }), 'headers'],
]

describe('the HTTP sends refuse every field the table keeps from applications', () => {
  for (const [path, body, at] of routes) {
    test.each(fields)(`${path}: %s (%s), in any case, is a 422 naming it, and nothing is queued`, async (name, rule) => {
      const before = await rowCounts(w)
      for (const spelled of [name, titleCase(name), name.toUpperCase()]) {
        const response = await w.t.request('POST', path, { key: w.key, body: body({ 'X-Fine': 'yes', [spelled]: valueOf(name) }) })
        expect(response.status).toBe(422)
        expect(response.body.errors).toMatchObject([{ field: `${at}.${spelled}`, message: asSentence(`${at}.${spelled}`, API_REFUSAL[rule]) }])
      }
      // The project's own verified domain is no better: the send's from field is its only sender.
      if (rule === 'sender') expect((await w.t.request('POST', path, { key: w.key, body: body({ [titleCase(name)]: FROM }) })).status).toBe(422)
      expect(await rowCounts(w)).toEqual(before)
    })
  }

  test('Resent-From naming a stranger\'s domain, as the review tried it, is refused on every route', async () => {
    for (const [path, body] of routes) {
      const response = await w.t.request('POST', path, { key: w.key, body: body({ 'Resent-From': 'ceo@bank.example' }) })
      expect(response.body.errors[0].message).toEndWith("names who sends the message: only the send's from address, on a verified domain, may.")
    }
  })

  test('fields whose names only look like them reach the recipient, on every route', async () => {
    const lookalikes = { 'X-Resent-From': 'a', 'Resent-Fromage': 'b', 'X-Original-From': 'c', 'List-Unsubscribe': '<mailto:u@sender.example.com>', Senders: 'd' }
    const recipients = ['look1@example.net', 'look2@example.net', 'look3@example.net']
    for (const [index, [path, body]] of routes.entries()) {
      const sent = JSON.parse(JSON.stringify(body(lookalikes)).replace('jane@example.net', recipients[index]!))
      expect((await w.t.request('POST', path, { key: w.key, body: sent })).status).toBe(200)
    }
    await w.deliver()
    for (const recipient of recipients) {
      const message = receivedBy(w, recipient)
      for (const [name, value] of Object.entries(lookalikes)) expect(message.headers[name.toLowerCase()]).toBe(value)
    }
  })
})

describe('the other sends take no custom headers at all', () => {
  const spoof = { 'Resent-From': 'ceo@bank.example' }
  test.each([
    ['a campaign', '/campaigns', { name: 'C', subject: 'S', body: '<p>B</p>', from: FROM, audienceType: 'ALL', headers: spoof }, 'headers'],
    ['a useSend campaign', '/api/v1/campaigns', { name: 'C', subject: 'S', html: '<p>B</p>', from: FROM, contactBookId: 'x', headers: spoof }, 'headers'],
    ['a workflow SEND_EMAIL step', '/workflows', { name: 'W', triggerType: 'MANUAL', steps: [{ id: 'mail', type: 'SEND_EMAIL', config: { subject: 'S', body: '<p>B</p>', from: FROM, headers: spoof } }] }, 'steps[0].config.headers'],
  ])('%s with headers is a 422 naming them', async (_, path, body, field) => {
    const response = await w.t.request('POST', path, { key: w.key, body })
    expect(response.status).toBe(422)
    expect(response.body.errors).toContainEqual(expect.objectContaining({ field, message: expect.stringMatching(/not a field this request takes|is not part of a SEND_EMAIL step/) }))
  })
})

/** Relays a message with `fields` to a fresh recipient: the reply, and what the recipient got once delivered. */
async function relay(fieldLines: string) {
  const to = `relayed${Math.random().toString(36).slice(2, 8)}@example.net`
  const reply = await sendMessage(socket, FROM, [to], `From: ${FROM}\r\nTo: ${to}\r\n${fieldLines}Subject: relayed\r\n\r\nHello.\r\n`)
  if (!queuedId(reply)) return { reply, received: undefined }
  await w.deliver()
  return { reply, received: receivedBy(w, to).raw }
}

const headOf = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n') + 2)
const byRule = (rule: FieldRule) => fields.filter(([, r]) => r === rule).map(([name]) => name)

describe('the relay acts on the same table', () => {
  test.each(byRule('server'))('%s, the server\'s, is removed from relayed mail', async (name) => {
    const { received } = await relay(`${titleCase(name)}: ${valueOf(name)}\r\n`)
    expect(headOf(received!)).not.toMatch(new RegExp(`^${name}:`, 'im'))
  })

  test.each(byRule('sender').filter((name) => name !== 'from'))('%s naming a domain the project has not verified is refused with 550 5.7.1', async (name) => {
    const { reply } = await relay(`${titleCase(name)}: ceo@bank.example\r\n`)
    expect(reply).toStartWith('550 5.7.1')
    expect(reply).toContain('bank.example')
  })

  test('a From naming a domain the project has not verified is refused with 550 5.7.1', async () => {
    const reply = await sendMessage(socket, FROM, ['x@example.net'], 'From: ceo@bank.example\r\nTo: x@example.net\r\n\r\nHi\r\n')
    expect(reply).toStartWith('550 5.7.1')
  })

  test('each sender field naming the project\'s verified domain goes out as written', async () => {
    const lines = byRule('sender').filter((name) => name !== 'from').map((name) => `${titleCase(name)}: ops@sender.example.com\r\n`).join('')
    const { received } = await relay(lines)
    for (const line of lines.split('\r\n').filter(Boolean)) expect(headOf(received!)).toContain(line)
  })

  test('the message\'s own fields are kept as the application wrote them', async () => {
    const lines = 'Resent-To: other@example.org\r\nResent-Cc: third@example.org\r\nResent-Date: Mon, 1 Jan 2024 00:00:00 +0000\r\nResent-Message-ID: <r1@sender.example.com>\r\nReceived: from app.internal by relay\r\n'
    const { received } = await relay(lines)
    for (const line of lines.split('\r\n').filter(Boolean)) expect(headOf(received!)).toContain(line)
  })
})
