// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import nodemailer from 'nodemailer'
import { createProject } from '../../src/core/projects/projects.service.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { until } from '../helpers/until.ts'

let w: World
let sandboxKey: string

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'relay-port': '0' } })
  sandboxKey = (await w.t.app.writer.run((trx) => createProject(trx, 'Relay sandbox', Date.now(), { sandbox: true }))).secretKey
})

afterAll(() => w.close())

const transport = (pass: string) =>
  nodemailer.createTransport({ host: '127.0.0.1', port: w.t.app.listeners()!.relay.port!, secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'mailstead', pass } } as never)

test("the relay takes a sandbox project's mail from any address and simulates it; a real project's key still needs its domain", async () => {
  const info: any = await transport(sandboxKey).sendMail({ from: 'Ada <ada@nowhere.example>', to: 'jane@example.net', subject: 'Over SMTP', text: 'Hello' })
  const emailId = /Queued as (\S+)/.exec(info.response)![1]!
  const statuses = async () => ((await w.t.request('GET', `/api/v1/emails/${emailId}`, { key: sandboxKey })).body.emailEvents as any[]).map((e) => e.status)
  const seen = await until(statuses, (seen) => seen.includes('DELIVERED'))
  expect(seen).toEqual(['QUEUED', 'SENT', 'DELIVERED'])
  expect(w.mx.received).toHaveLength(0)
  const refused = await transport(w.key).sendMail({ from: 'ada@nowhere.example', to: 'jane@example.net', subject: 'Over SMTP', text: 'Hello' }).catch((error: Error) => error)
  expect(String(refused)).toContain('nowhere.example')
})
