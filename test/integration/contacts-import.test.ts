// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { importCsvFile } from '../../src/core/contacts/import-file.ts'
import { uploadPath } from '../../src/core/contacts/imports.service.ts'
import { saveProgress } from '../../src/core/contacts/imports.repository.ts'
import { createImport } from '../../src/core/contacts/imports.service.ts'
import { receiveCsvUpload } from '../../src/http/upload.ts'
import { newId } from '../../src/lib/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let key: string

beforeAll(async () => {
  t = await createTestApp()
  await t.app.imports.start()
})

afterAll(() => t.close())

const newProject = async () => (await t.project('Importing')).secretKey

/** POSTs a CSV as the raw body. */
const upload = (apiKey: string, body: string | Uint8Array, contentType: string | null = 'text/csv') =>
  t.app.handle(
    new Request('http://localhost/contacts/import', {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, ...(contentType && { 'content-type': contentType }) },
      body,
    }),
  )

/** POSTs a CSV as a browser's file upload does. */
const uploadForm = (apiKey: string, csv: string, field = 'file') => {
  const form = new FormData()
  form.append('note', 'uploaded from the dashboard')
  form.append(field, new Blob([csv], { type: 'text/csv' }), 'people.csv')
  return t.app.handle(new Request('http://localhost/contacts/import', { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form }))
}

/** Uploads, waits for the import to end, and returns it. */
async function imported(apiKey: string, csv: string | Uint8Array) {
  const response = await upload(apiKey, csv)
  expect(response.status).toBe(202)
  const job = (await response.json()) as { id: string }
  await t.app.imports.drain()
  return (await t.request('GET', `/contacts/import/${job.id}`, { key: apiKey })).body
}

const contactsOf = async (apiKey: string) => {
  const list = await t.request('GET', '/contacts?limit=100', { key: apiKey })
  return Object.fromEntries(list.body.contacts.map((c: any) => [c.email, { subscribed: c.subscribed, data: c.data }]))
}

const uploads = () => readdirSync(join(t.dataDir, 'imports'))

describe('POST /contacts/import', () => {
  test('answers 202 with a PENDING job, and the import completes in the background', async () => {
    key = await newProject()
    const response = await upload(key, 'email,plan\nann@example.com,pro\n')
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({
      id: expect.any(String),
      status: 'PENDING',
      fileName: null,
      processedRows: 0,
      createdCount: 0,
      updatedCount: 0,
      failedCount: 0,
      errors: [],
      error: null,
      bytesTotal: 31,
      bytesProcessed: 0,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      finishedAt: null,
    })
    await t.app.imports.drain()
    const jobs = await t.request('GET', '/contacts/import', { key })
    expect(jobs.body.imports).toHaveLength(1)
    expect(jobs.body.imports[0]).toMatchObject({ status: 'COMPLETED', processedRows: 1, createdCount: 1, bytesProcessed: 31, finishedAt: expect.stringMatching(/Z$/) })
    expect(await contactsOf(key)).toEqual({ 'ann@example.com': { subscribed: true, data: { plan: 'pro' } } })
    expect(uploads()).toEqual([])
  })

  test('reads types, a byte order mark, quoted commas, line breaks and quotes, and skips empty lines', async () => {
    const apiKey = await newProject()
    const csv = '\ufeff Email ,Name,age,score,vip,zip,note\r\n' +
      'a@example.com,"Lovelace, Ada",36,3.5,true,02139,"said ""hi""\r\nthen left"\r\n' +
      '\r\n' +
      'b@example.com,Bob,-2,1e3,false,,\r\n'
    const job = await imported(apiKey, csv)
    expect(job).toMatchObject({ status: 'COMPLETED', processedRows: 2, createdCount: 2, failedCount: 0, errors: [] })
    expect(await contactsOf(apiKey)).toEqual({
      'a@example.com': { subscribed: true, data: { Name: 'Lovelace, Ada', age: 36, score: 3.5, vip: true, zip: '02139', note: 'said "hi"\r\nthen left' } },
      'b@example.com': { subscribed: true, data: { Name: 'Bob', age: -2, score: '1e3', vip: false } },
    })
  })

  test('a multipart form with a file field works like a raw body', async () => {
    const apiKey = await newProject()
    const response = await uploadForm(apiKey, 'email,city\nform@example.com,Oslo\n')
    expect(response.status).toBe(202)
    const job = (await response.json()) as any
    expect(job.fileName).toBe('people.csv')
    await t.app.imports.drain()
    expect((await t.request('GET', `/contacts/import/${job.id}`, { key: apiKey })).body.status).toBe('COMPLETED')
    expect(await contactsOf(apiKey)).toEqual({ 'form@example.com': { subscribed: true, data: { city: 'Oslo' } } })
  })

  test('existing contacts are matched as the API matches them: data merged, subscribed kept unless a cell says', async () => {
    const apiKey = await newProject()
    const ada = (await t.request('POST', '/contacts', { key: apiKey, body: { email: 'Ada@Example.com', subscribed: false, data: { plan: 'free', lang: 'en' } } })).body
    await t.request('POST', '/contacts', { key: apiKey, body: { email: 'bob@example.com', subscribed: false } })
    await t.request('POST', '/contacts', { key: apiKey, body: { email: 'cy@example.com', subscribed: true } })
    const job = await imported(apiKey, 'email,subscribed,plan\nada@EXAMPLE.com,,pro\nbob@example.com,yes,\ncy@example.com,0,\nnew@example.com,,\n')
    expect(job).toMatchObject({ processedRows: 4, createdCount: 1, updatedCount: 3, failedCount: 0 })
    expect(await contactsOf(apiKey)).toEqual({
      'Ada@Example.com': { subscribed: false, data: { plan: 'pro', lang: 'en' } },
      'bob@example.com': { subscribed: true, data: {} },
      'cy@example.com': { subscribed: false, data: {} },
      'new@example.com': { subscribed: true, data: {} },
    })
    expect((await t.request('GET', `/contacts/${ada.id}`, { key: apiKey })).body.email).toBe('Ada@Example.com')
  })

  test('without a subscribed column existing contacts keep theirs', async () => {
    const apiKey = await newProject()
    await t.request('POST', '/contacts', { key: apiKey, body: { email: 'out@example.com', subscribed: false } })
    await imported(apiKey, 'email,plan\nout@example.com,pro\n')
    expect(await contactsOf(apiKey)).toEqual({ 'out@example.com': { subscribed: false, data: { plan: 'pro' } } })
  })

  test('the same address twice in a file is one contact, later cells winning', async () => {
    const apiKey = await newProject()
    const job = await imported(apiKey, 'email,subscribed,plan,city\ntwin@example.com,no,free,Rome\nTWIN@example.com,,pro,\n')
    expect(job).toMatchObject({ processedRows: 2, createdCount: 1, updatedCount: 1, failedCount: 0 })
    expect(await contactsOf(apiKey)).toEqual({ 'twin@example.com': { subscribed: false, data: { plan: 'pro', city: 'Rome' } } })
  })

  test('bad rows are reported by line and the good ones imported', async () => {
    const apiKey = await newProject()
    const csv = [
      'email,name',
      'ok1@example.com,One',
      'not-an-address,Two',
      'short@example.com',
      '"multi',
      'line@example.com",x',
      'extra@example.com,a,b',
      ',nobody',
      `long@example.com,${'x'.repeat(10 * 1024 * 1024)}`,
      'ok2@example.com,Two',
    ].join('\n')
    const job = await imported(apiKey, csv)
    expect(job).toMatchObject({ status: 'COMPLETED', processedRows: 8, createdCount: 2, updatedCount: 0, failedCount: 6 })
    expect(job.errors).toEqual([
      { line: 3, message: '"not-an-address": The address is not valid: it must look like name@domain.' },
      { line: 4, message: 'the row has 1 field where the header has 2' },
      { line: 5, message: '"multi\\nline@example.com": The address is not valid: it contains spaces or control characters.' },
      { line: 7, message: 'the row has 3 fields where the header has 2' },
      { line: 8, message: 'the email is empty' },
      { line: 9, message: 'the record is longer than 1 MiB' },
    ])
    expect(Object.keys(await contactsOf(apiKey)).sort()).toEqual(['ok1@example.com', 'ok2@example.com'])
  })

  test('only the first 100 failed rows are kept, all are counted', async () => {
    const apiKey = await newProject()
    const rows = Array.from({ length: 150 }, (_, i) => `bad${i}`)
    const job = await imported(apiKey, ['email', ...rows, 'good@example.com'].join('\n'))
    expect(job).toMatchObject({ processedRows: 151, createdCount: 1, failedCount: 150 })
    expect(job.errors).toHaveLength(100)
    expect(job.errors[99].line).toBe(101)
  })

  test('a header-only file completes with nothing imported', async () => {
    const apiKey = await newProject()
    expect(await imported(apiKey, 'email,plan\n')).toMatchObject({ status: 'COMPLETED', processedRows: 0 })
  })
})

describe('uploads that are refused before any job starts', () => {
  const cases: Array<[string, string, string | null, number, string]> = [
    ['no email column', 'name,plan\nAda,pro\n', 'text/csv', 422, 'the CSV has no email column'],
    ['an empty file', '', 'text/csv', 422, 'the file is empty'],
    ['only empty lines', '\n\r\n\n', 'text/csv', 422, 'the file is empty'],
    ['a header naming a column twice', 'email,a,a\n', 'text/csv', 422, 'names the column "a" twice'],
    ['a JSON body', '{"email":"a@example.com"}', 'application/json', 415, 'takes a CSV file, not application/json'],
    ['plain text', 'email\na@example.com\n', 'text/plain', 415, 'not text/plain'],
    ['no content type', 'email\na@example.com\n', null, 415, 'a body without a Content-Type'],
  ]

  test.each(cases)('%s is a %#', async (_name, body, contentType, status, message) => {
    const apiKey = await newProject()
    const response = await upload(apiKey, body, contentType)
    expect(response.status).toBe(status)
    const error = (await response.json()) as any
    expect(error.message).toContain(message)
    expect((await t.request('GET', '/contacts/import', { key: apiKey })).body.imports).toEqual([])
    expect(uploads()).toEqual([])
  })

  test('a form without a file field is a 422', async () => {
    const apiKey = await newProject()
    const response = await uploadForm(apiKey, 'email\na@example.com\n', 'csv')
    expect(response.status).toBe(422)
    expect(((await response.json()) as any).message).toContain('no file field')
    expect(uploads()).toEqual([])
  })

  test('a declared length over 512 MiB is a 413 before anything is read', async () => {
    const apiKey = await newProject()
    const response = await t.app.handle(
      new Request('http://localhost/contacts/import', {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/csv', 'content-length': String(600 * 1024 * 1024) },
        body: 'email\n',
      }),
    )
    expect(response.status).toBe(413)
  })

  test('without a valid key nothing is stored', async () => {
    const response = await upload('sk_nope', 'email\na@example.com\n')
    expect(response.status).toBe(401)
    expect(uploads()).toEqual([])
  })

  test.each(['raw', 'form'])('a %s upload past the limit is a 413 and leaves no file', async (kind) => {
    const target = join(t.dataDir, 'limit-test', `${kind}.csv`)
    const body = `email\n${'a@example.com\n'.repeat(200)}`
    const form = new FormData()
    form.append('file', new Blob([body]), 'big.csv')
    const request =
      kind === 'raw'
        ? new Request('http://localhost/', { method: 'POST', headers: { 'content-type': 'text/csv' }, body })
        : new Request('http://localhost/', { method: 'POST', body: form })
    const error = await receiveCsvUpload(request, target, 1000).catch((e) => e)
    expect(error.status).toBe(413)
    expect(existsSync(target)).toBe(false)
  })
})

describe('GET /contacts/import/{id}', () => {
  test('an unknown id, or another project\'s import, is a 404', async () => {
    const apiKey = await newProject()
    const other = await newProject()
    const job = await imported(apiKey, 'email\nmine@example.com\n')
    expect((await t.request('GET', `/contacts/import/${job.id}`, { key: other })).status).toBe(404)
    expect((await t.request('GET', `/contacts/import/${newId()}`, { key: apiKey })).status).toBe(404)
  })

  test('/contacts/import is not taken for a contact id, and /contacts/{id} still works', async () => {
    const apiKey = await newProject()
    const contact = (await t.request('POST', '/contacts', { key: apiKey, body: { email: 'route@example.com' } })).body
    expect((await t.request('GET', '/contacts/import', { key: apiKey })).body).toEqual({ imports: [] })
    expect((await t.request('GET', `/contacts/${contact.id}`, { key: apiKey })).body.email).toBe('route@example.com')
  })
})

describe('the hook in each chunk', () => {
  test("runs in the chunk's transaction after its contacts; when it fails, the chunk is not written", async () => {
    const project = await t.project('Hooked')
    const file = join(t.dataDir, 'hooked.csv')
    writeFileSync(file, 'email\na@example.com\nb@example.com\nc@example.com\n')
    const calls: Array<{ processed: number; visible: number }> = []
    await importCsvFile(t.app.db, t.app.writer.run, project.id, file, {
      chunkRows: 2,
      onChunk: async (trx, progress) => {
        const visible = await trx.selectFrom('contacts').select('id').where('project_id', '=', project.id).execute()
        calls.push({ processed: progress.processedRows, visible: visible.length })
      },
    })
    expect(calls).toEqual([
      { processed: 2, visible: 2 },
      { processed: 3, visible: 3 },
    ])
    const failing = await t.project('Hook fails')
    const error = await importCsvFile(t.app.db, t.app.writer.run, failing.id, file, {
      onChunk: async () => {
        throw new Error('the hook broke')
      },
    }).catch((e) => e)
    expect(error.message).toBe('the hook broke')
    expect(await contactsOf(failing.secretKey)).toEqual({})
  })
})

describe('tracked segments', () => {
  test('an import records the contacts that enter and leave a tracked segment', async () => {
    const apiKey = await newProject()
    await t.request('POST', '/contacts', { key: apiKey, body: { email: 'was-gold@example.com', data: { plan: 'gold' } } })
    const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'gold' }] }] }
    const segment = (await t.request('POST', '/segments', { key: apiKey, body: { name: 'Gold', condition, trackMembership: true } })).body
    await imported(apiKey, 'email,plan\nwas-gold@example.com,free\nnew-gold@example.com,gold\nplain@example.com,free\n')
    const events = await t.app.db
      .selectFrom('events as e')
      .innerJoin('contacts as c', 'c.id', 'e.contact_id')
      .select(['e.name', 'c.email'])
      .where('e.name', 'like', `segment.${segment.id}.%`)
      .orderBy('e.id')
      .execute()
    expect(events.map((e) => `${e.name.split('.').at(-1)} ${e.email}`).sort()).toEqual(['entry new-gold@example.com', 'exit was-gold@example.com'])
  })
})

describe('an interrupted import', () => {
  test('goes on from its last committed chunk when the app starts again, without duplicates', async () => {
    const first = await createTestApp()
    const project = await first.project('Resumed')
    const id = newId()
    const rows = Array.from({ length: 10 }, (_, i) => `r${i}@example.com,${i}`)
    mkdirSync(join(first.dataDir, 'imports'))
    writeFileSync(join(first.dataDir, uploadPath(id)), ['email,n', ...rows, 'bad-row,1'].join('\n'))
    await first.app.writer.run((trx) => createImport(trx, project.id, { id, fileName: null, filePath: uploadPath(id), storedAt: join(first.dataDir, uploadPath(id)), bytesTotal: 1 }, Date.now()))
    // What a crash after the first chunk of 4 rows leaves: those contacts and their progress, RUNNING
    // and claimed by the process that died, whose lease ran out.
    const stop = new AbortController()
    await importCsvFile(first.app.db, first.app.writer.run, project.id, join(first.dataDir, uploadPath(id)), {
      chunkRows: 4,
      signal: stop.signal,
      onChunk: async (trx, progress) => void (await saveProgress(trx, id, progress, Date.now())),
      onProgress: () => stop.abort(),
    })
    const dead = { status: 'RUNNING' as const, claimed_by: 'a process that crashed', lease_until: Date.now() - 1 }
    await first.app.db.updateTable('contact_imports').set(dead).where('id', '=', id).execute()
    // The app built again on the same data directory and database, as a start after the crash.
    await first.restart()
    const second = first
    try {
      await second.app.imports.start()
      await second.app.imports.drain()
      expect((await second.request('GET', `/contacts/import/${id}`, { key: project.secretKey })).body.status).toBe('RUNNING')
      await second.app.claims.keep()
      second.app.imports.queued()
      await second.app.imports.drain()
      const job = await second.request('GET', `/contacts/import/${id}`, { key: project.secretKey })
      expect(job.body).toMatchObject({ status: 'COMPLETED', processedRows: 11, createdCount: 10, updatedCount: 0, failedCount: 1 })
      expect(job.body.errors).toEqual([{ line: 12, message: '"bad-row": The address is not valid: it must look like name@domain.' }])
      const stored = await second.app.db.selectFrom('contacts').select(['email']).where('project_id', '=', project.id).execute()
      expect(stored.map((c) => c.email).sort()).toEqual(rows.map((r) => r.split(',')[0]!).sort())
      expect(existsSync(join(first.dataDir, uploadPath(id)))).toBe(false)
    } finally {
      await second.close()
    }
  })
})

describe('an upload received by another process', () => {
  test('is read from the database by the process that runs the import, and forgotten once it ends', async () => {
    const other = await createTestApp()
    try {
      const project = await other.project('Elsewhere')
      const rows = Array.from({ length: 3000 }, (_, i) => `far${i}@example.com,${'x'.repeat(400)}`)
      const csv = ['email,note', ...rows].join('\n')
      const response = await other.app.handle(
        new Request('http://localhost/contacts/import', { method: 'POST', headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'text/csv' }, body: csv }),
      )
      expect(response.status).toBe(202)
      const { id } = (await response.json()) as { id: string }
      const parts = () => other.app.db.selectFrom('contact_import_parts').select('part').where('import_id', '=', id).execute()
      // Over 1 MiB: kept in two parts.
      expect((await parts()).map((p) => p.part)).toEqual([0, 1])
      // The process that runs it has no copy of its own: it was received on another machine.
      rmSync(join(other.dataDir, uploadPath(id)))
      await other.app.imports.start()
      await other.app.imports.drain()
      const job = (await other.request('GET', `/contacts/import/${id}`, { key: project.secretKey })).body
      expect(job).toMatchObject({ status: 'COMPLETED', processedRows: 3000, createdCount: 3000, failedCount: 0 })
      expect(await parts()).toEqual([])
      expect(existsSync(join(other.dataDir, uploadPath(id)))).toBe(false)
    } finally {
      await other.close()
    }
  })
})
