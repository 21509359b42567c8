// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import { isoTime } from '../../lib/clock.ts'
import { createProject } from '../projects/projects.service.ts'
import { saveContact } from './contacts.service.ts'
import { exportContactsCsv } from './export.ts'

let database: Database
let projectId: number

beforeAll(async () => {
  database = await openTestDatabase()
  projectId = (await createProject(database.db, 'P', 0)).id
  const other = (await createProject(database.db, 'Q', 0)).id
  await saveContact(database.db, projectId, { email: 'a@example.com', data: { zeta: 1, Alpha: 'x', 'é': true } }, Date.UTC(2026, 0, 1))
  await saveContact(database.db, projectId, { email: 'b@example.com', subscribed: false, data: { alpha: { n: [1] }, b: 'two, three' } }, Date.UTC(2026, 0, 2))
  await saveContact(database.db, other, { email: 'c@example.com', data: { elsewhere: 1 } }, 0)
})

afterAll(() => database.close())

describe('exportContactsCsv', () => {
  test('a column per data key of the project, in the order of their bytes, then a row per contact', async () => {
    let csv = ''
    const summary = await exportContactsCsv(database.db, projectId, async (text) => void (csv += text))
    const [one, two] = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 2)].map(isoTime)
    expect(csv.trimEnd().split('\n')).toEqual([
      'email,subscribed,createdAt,updatedAt,Alpha,alpha,b,zeta,é',
      `a@example.com,true,${one},${one},x,,,1,true`,
      `b@example.com,false,${two},${two},,"{""n"":[1]}","two, three",,`,
    ])
    expect(summary).toEqual({ contacts: 2, columns: ['email', 'subscribed', 'createdAt', 'updatedAt', 'Alpha', 'alpha', 'b', 'zeta', 'é'] })
  })
})
