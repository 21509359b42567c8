// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/*
 * A contact import's column mapping, its report of refused rows, and the uploads refused before
 * any import starts (a file that is not UTF-8, has no header, names a column twice, or is too
 * large): each a 422 or 413 naming its field, with no import, no contact and no file left.
 */

let t: TestApp

beforeAll(async () => {
  t = await createTestApp()
  await t.app.imports.start()
})

afterAll(() => t.close())

const newProject = async () => (await t.project('Importing')).secretKey

/** POSTs a CSV as a browser's file upload does, with a mapping when given. */
const uploadForm = (key: string, csv: string | Uint8Array, mapping?: string) => {
  const form = new FormData()
  if (mapping !== undefined) form.append('mapping', mapping)
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'people.csv')
  return t.app.handle(new Request('http://localhost/contacts/import', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form }))
}

const uploadRaw = (key: string, body: string | Uint8Array) =>
  t.app.handle(new Request('http://localhost/contacts/import', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' }, body }))

async function finished(key: string, response: Response) {
  expect(response.status).toBe(202)
  const job = (await response.json()) as { id: string }
  await t.app.imports.drain()
  return (await t.request('GET', `/contacts/import/${job.id}`, { key })).body
}

const contactsOf = async (key: string) => {
  const list = await t.request('GET', '/contacts?limit=100', { key })
  return Object.fromEntries(list.body.contacts.map((c: any) => [c.email, { subscribed: c.subscribed, data: c.data }]))
}

const uploads = () => readdirSync(join(t.dataDir, 'imports'))

/** The answer is the error, and nothing was started or written. */
async function refused(key: string, response: Response, status: number, field: string, message: string) {
  expect(response.status).toBe(status)
  const error = (await response.json()) as any
  expect(error.errors).toEqual([expect.objectContaining({ field })])
  // Field messages are written as sentences: "Names the column…".
  expect(error.errors[0].message.toLowerCase()).toContain(message.toLowerCase())
  expect((await t.request('GET', '/contacts/import', { key })).body.imports).toEqual([])
  expect(await contactsOf(key)).toEqual({})
  expect(uploads()).toEqual([])
  return error
}

describe('a column mapping', () => {
  test('maps a renamed column to email, others to subscribed and data keys, and ignores one', async () => {
    const key = await newProject()
    const csv = 'E-mail address,Plan,Opt in,Notes,email\nann@example.com,pro,no,skip me,old@example.com\nbob@example.com,free,,x,\n'
    const mapping = JSON.stringify({ 'E-mail address': 'email', Plan: 'data.tier', 'Opt in': 'subscribed', Notes: 'ignore', email: 'ignore' })
    const job = await finished(key, await uploadForm(key, csv, mapping))
    expect(job).toMatchObject({ status: 'COMPLETED', processedRows: 2, createdCount: 2, failedCount: 0 })
    expect(await contactsOf(key)).toEqual({
      'ann@example.com': { subscribed: false, data: { tier: 'pro' } },
      'bob@example.com': { subscribed: true, data: { tier: 'free' } },
    })
  })

  test('columns the mapping leaves out are read as named', async () => {
    const key = await newProject()
    await finished(key, await uploadForm(key, 'Mail,city\ncy@example.com,Oslo\n', '{"Mail":"email"}'))
    expect(await contactsOf(key)).toEqual({ 'cy@example.com': { subscribed: true, data: { city: 'Oslo' } } })
  })

  const cases: Array<[string, string, string]> = [
    ['not JSON', '{email', 'is not JSON'],
    ['not an object', '["email"]', 'must be a JSON object'],
    ['an unknown target', '{"Mail":"phone"}', 'maps "Mail" to "phone"'],
    ['a column the header does not have', '{"Mail":"email","Phone":"data.phone"}', 'names the column "Phone", which the header does not have'],
    ['two columns to email', '{"Mail":"email","Other":"email"}', 'maps both "Mail" and "Other" to email'],
    ['two columns to one data key', '{"Mail":"email","city":"data.town","Other":"data.town"}', 'to data.town'],
    ['no column to email', '{"Mail":"data.mail"}', 'maps no column to email'],
  ]
  test.each(cases)('%s is a 422 on mapping, and nothing starts', async (_name, mapping, message) => {
    const key = await newProject()
    await refused(key, await uploadForm(key, 'Mail,city,Other\na@example.com,Oslo,b@example.com\n', mapping), 422, 'mapping', message)
  })
})

describe('the report of refused rows', () => {
  test('GET /contacts/import/{id}/errors.csv gives each refused row with its line and reason', async () => {
    const key = await newProject()
    const csv = 'Mail,name\nok@example.com,Ok\nnot-an-address,Two\nshort@example.com\n,nobody\n'
    const job = await finished(key, await uploadForm(key, csv, '{"Mail":"email"}'))
    expect(job).toMatchObject({ createdCount: 1, failedCount: 3 })
    const response = await t.app.handle(new Request(`http://localhost/contacts/import/${job.id}/errors.csv`, { headers: { authorization: `Bearer ${key}` } }))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="import-${job.id}-refused-rows.csv"`)
    expect((await response.text()).split('\n')).toEqual([
      'line,reason',
      '3,"""not-an-address"": The address is not valid: it must look like name@domain."',
      '4,the row has 1 field where the header has 2',
      '5,the email is empty',
      '',
    ])
  })

  test('past the first 100, its last row says how many more were refused', async () => {
    const key = await newProject()
    const job = await finished(key, await uploadRaw(key, ['email', ...Array.from({ length: 130 }, (_, i) => `bad${i}`)].join('\n')))
    const text = await (await t.app.handle(new Request(`http://localhost/contacts/import/${job.id}/errors.csv`, { headers: { authorization: `Bearer ${key}` } }))).text()
    const lines = text.trim().split('\n')
    expect(lines).toHaveLength(102)
    expect(lines[100]).toStartWith('101,')
    expect(lines[101]).toBe(',"30 more rows were refused after the first 100, which are the ones listed"')
  })

  test("another project's import, or an unknown one, is a 404", async () => {
    const key = await newProject()
    const job = await finished(key, await uploadRaw(key, 'email\nx@example.com\n'))
    const other = await newProject()
    expect((await t.request('GET', `/contacts/import/${job.id}/errors.csv`, { key: other })).status).toBe(404)
  })
})

const latin1 = (text: string) => Uint8Array.from([...text].map((c) => c.charCodeAt(0)))

describe('uploads refused before any import starts', () => {
  test.each(['raw', 'form'])('a %s file that is not UTF-8 (Latin-1) is a 422 naming its line', async (kind) => {
    const key = await newProject()
    const body = latin1('email,name\nann@example.com,Ann\nzoe@example.com,Zo\u00eb\n')
    const response = kind === 'raw' ? await uploadRaw(key, body) : await uploadForm(key, body)
    const error = await refused(key, response, 422, 'file', 'is not UTF-8 text: line 3 holds bytes that are not UTF-8')
    expect(error.suggestion).toContain('UTF-8')
  })

  test('UTF-16 (as some spreadsheets save) is refused as not UTF-8', async () => {
    const key = await newProject()
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from('email\nann@example.com\n', 'utf16le')])
    await refused(key, await uploadRaw(key, utf16), 422, 'file', 'line 1 holds bytes that are not UTF-8')
  })

  test('a character cut short at the end of the file is refused', async () => {
    const key = await newProject()
    const cut = new Uint8Array([...Buffer.from('email\nann@example.com,'), 0xc3])
    await refused(key, await uploadRaw(key, cut), 422, 'file', 'line 2 holds bytes')
  })

  test('UTF-8 characters across the chunks the upload arrives in are fine', async () => {
    const key = await newProject()
    const rows = Array.from({ length: 3000 }, (_, i) => `p${i}@example.com,Zoë 😀 ${'é'.repeat(i % 7)}`)
    const job = await finished(key, await uploadForm(key, ['email,name', ...rows].join('\n')))
    expect(job).toMatchObject({ status: 'COMPLETED', createdCount: 3000, failedCount: 0 })
  })

  const headers: Array<[string, string, string]> = [
    ['an empty file', '', 'the file is empty'],
    ['a file of empty lines (no header)', '\n\r\n\n', 'the file is empty'],
    ['a header without an email column', 'name,plan\nAda,pro\n', 'the CSV has no email column'],
    ['a column named twice', 'email,city,city\na@example.com,Oslo,Rome\n', 'names the column "city" twice'],
    ['a column named twice in another case', 'Email,email\na@example.com,b@example.com\n', 'names the column "email" twice'],
    ['an unnamed column', 'email,,plan\n', 'column 2 of the header has no name'],
  ]
  test.each(headers)('%s is a 422 on file', async (_name, csv, message) => {
    const key = await newProject()
    await refused(key, await uploadForm(key, csv), 422, 'file', message)
  })

  test('a declared 1 GB is a 413 before any of it is read', async () => {
    const key = await newProject()
    let pulled = 0
    const body = new ReadableStream({
      pull(controller) {
        pulled += 1
        controller.enqueue(new Uint8Array(1024))
      },
    })
    const response = await t.app.handle(
      new Request('http://localhost/contacts/import', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv', 'content-length': String(1_000_000_000) },
        body,
        duplex: 'half',
      } as RequestInit),
    )
    await refused(key, response, 413, 'body', 'is larger than 512 MiB')
    expect(pulled).toBeLessThan(10)
  })

  test('1 GB streamed without a length is cut off at 512 MiB, never held in memory, and leaves no file', async () => {
    const key = await newProject()
    const MiB = 1024 * 1024
    const block = new TextEncoder().encode(`email\n${'a@example.com\n'.repeat(MiB / 14)}`.padEnd(MiB, '\n'))
    let sent = 0
    const body = new ReadableStream({
      pull(controller) {
        if (sent >= 1024 * MiB) return controller.close()
        sent += MiB
        controller.enqueue(block)
      },
    })
    const before = process.memoryUsage().rss
    const response = await t.app.handle(
      new Request('http://localhost/contacts/import', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' }, body, duplex: 'half' } as RequestInit),
    )
    await refused(key, response, 413, 'file', 'is larger than 512 MiB')
    expect(sent).toBeLessThan(600 * MiB)
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * MiB)
  })
})
