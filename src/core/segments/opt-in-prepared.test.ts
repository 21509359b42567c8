// @database
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { buildMessage } from '../emails/index.ts'
import { createProject } from '../projects/projects.service.ts'
import { addBookContacts, prepareListOptIns } from './book-contacts.service.ts'
import { createBook, updateBook } from './contact-books.service.ts'
import type { OptInMail } from './opt-in.service.ts'

/*
 * The confirmations of a bulk add are built before the write transaction: inside it, with them
 * prepared, no message is built (a build there would hold the writer for every other request).
 */

let database: Database
let projectId: number
const now = Date.parse('2026-11-28T00:00:00Z')
let builtInside = 0

beforeAll(async () => {
  database = await openTestDatabase()
  projectId = (await createProject(database.db, 'Sandbox', now, { sandbox: true })).id
})

afterAll(() => database.close())

const mail = (build: OptInMail['build']): OptInMail => ({ links: { baseUrl: 'https://mail.example.org', secret: 'test-secret-test-secret-test-secret' }, build, sendSettings: { maxAgeMs: 86_400_000 } })
const counting = mail(async (parts) => {
  builtInside++
  return buildMessage(parts)
})
const contacts = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@example.net` }))

test('with the confirmations prepared, the transaction queues 1,000 of them and builds none', async () => {
  const book = await createBook(database.db, projectId, { name: 'Big', doubleOptInEnabled: true, doubleOptInFrom: 'news@sandbox.example' }, now)
  const inputs = contacts(1000, 'bulk')
  const prepared = await prepareListOptIns(database.db, projectId, book.id, inputs, mail(buildMessage), now)
  builtInside = 0
  await writeTransaction(database.db, (trx) => addBookContacts(trx, projectId, book.id, inputs, { method: 'api', ip: null, userAgent: null }, counting, now, prepared))
  expect(builtInside).toBe(0)
  const queued = await database.db.selectFrom('book_opt_ins').select(['email_id']).where('segment_id', '=', book.id).execute()
  expect(queued).toHaveLength(1000)
  expect(new Set(queued.map((row) => row.email_id)).size).toBe(1000)
})

test('a book changed between the two steps: the transaction builds with the settings it finds', async () => {
  const book = await createBook(database.db, projectId, { name: 'Changing', doubleOptInEnabled: true, doubleOptInFrom: 'news@sandbox.example' }, now)
  const inputs = contacts(3, 'changed')
  const prepared = await prepareListOptIns(database.db, projectId, book.id, inputs, mail(buildMessage), now)
  await writeTransaction(database.db, (trx) => updateBook(trx, projectId, book.id, { doubleOptInSubject: 'A new subject' }, now))
  builtInside = 0
  await writeTransaction(database.db, (trx) => addBookContacts(trx, projectId, book.id, inputs, { method: 'api', ip: null, userAgent: null }, counting, now, prepared))
  expect(builtInside).toBe(3)
})

test('a book without double opt-in prepares nothing', async () => {
  const book = await createBook(database.db, projectId, { name: 'Open' }, now)
  expect(await prepareListOptIns(database.db, projectId, book.id, contacts(2, 'open'), mail(buildMessage), now)).toBeUndefined()
})
