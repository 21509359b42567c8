import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { makesDatabase, tagOf, taggedFiles, testFiles } from '../../scripts/test-postgres.ts'

/*
 * The PostgreSQL pass runs the test files tagged `// @database` (scripts/test-postgres.ts). A file
 * that makes a database through the test helpers says on its first line whether the database is
 * its point (`// @database`) or incidental (`// @database-incidental: why`), so that none is left
 * out of the pass by forgetting. `bun scripts/test-postgres.ts --list` prints the files the pass runs.
 */

const ROOT = join(import.meta.dir, '..', '..')
const FILES = testFiles(ROOT)
const textOf = (file: string) => readFileSync(join(ROOT, file), 'utf8')

describe('the tags of the PostgreSQL pass', () => {
  test('every test file that makes a database through the test helpers is tagged @database or @database-incidental on its first line', () => {
    expect(FILES.filter((file) => makesDatabase(ROOT, file) && tagOf(textOf(file)) === undefined)).toEqual([])
  })

  test('a file tagged @database makes a database through the helpers (else the pass would run it for nothing)', () => {
    expect(taggedFiles(ROOT).filter((file) => !makesDatabase(ROOT, file))).toEqual([])
  })

  test('a tag is on the first line or nowhere', () => {
    expect(FILES.filter((file) => tagOf(textOf(file)) === undefined && /^\/\/ @database/m.test(textOf(file)))).toEqual([])
  })

  test('the tag reads as written: an opt-out says why', () => {
    expect(tagOf('// @database\nimport x')).toBe('database')
    expect(tagOf('// @database-incidental: the SMTP protocol\n')).toBe('incidental')
    expect(tagOf('// @database-incidental:\n')).toBeUndefined()
    expect(tagOf('// @databases\n')).toBeUndefined()
  })
})
