import { describe, expect, test } from 'bun:test'
import { choiceProblems, guessColumns, importedRows, mappingOf, parseCsv, readPreview } from './csv-preview.ts'

describe('parseCsv', () => {
  test('reads quotes, doubled quotes, commas and line breaks in quotes, CRLF, a byte order mark, and skips empty lines', () => {
    expect(parseCsv('\ufeffemail,note\r\na@x.io,"one, ""two""\nthree"\r\n\r\nb@x.io,\n', 10)).toEqual([
      ['email', 'note'],
      ['a@x.io', 'one, "two"\nthree'],
      ['b@x.io', ''],
    ])
  })

  test('stops at the records asked for', () => {
    expect(parseCsv('a\nb\nc\nd\n', 2)).toEqual([['a'], ['b']])
  })
})

describe('readPreview', () => {
  test('the header and the first five rows; a file that is not UTF-8 is said to be', async () => {
    const rows = Array.from({ length: 9 }, (_, i) => `p${i}@x.io`)
    const preview = await readPreview(new Blob([['Email ', ...rows].join('\n')]))
    expect(preview).toEqual({ header: ['Email'], rows: rows.slice(0, 5).map((r) => [r]), utf8: true })
    expect((await readPreview(new Blob([new Uint8Array([0x65, 0x0a, 0xe9, 0x0a])]))).utf8).toBe(false)
  })
})

describe('guessColumns', () => {
  test('email and subscribed by name, a column with "mail" in it when none is named email, timestamps ignored, the rest data', () => {
    expect(guessColumns(['E-mail address', 'Subscribed', 'createdAt', 'Plan', 'data.email']).map((c) => [c.kind, c.key])).toEqual([
      ['email', ''],
      ['subscribed', ''],
      ['ignore', ''],
      ['data', 'Plan'],
      ['data', 'email'],
    ])
    expect(guessColumns(['Work email', 'email']).map((c) => c.kind)).toEqual(['data', 'email'])
  })
})

describe('the mapping sent and its problems', () => {
  const choices = guessColumns(['Mail', 'Plan', 'Junk'])
  choices[2] = { ...choices[2]!, kind: 'ignore' }

  test('every column by name', () => {
    expect(mappingOf(choices)).toEqual({ Mail: 'email', Plan: 'data.Plan', Junk: 'ignore' })
  })

  test('one email, one subscribed, each data key named once', () => {
    expect(choiceProblems(choices)).toEqual([])
    expect(choiceProblems(choices.map((c) => ({ ...c, kind: 'data' as const, key: 'k' })))).toEqual(['Choose the column that holds the email addresses.', 'Two columns go to the data key "k".'])
    expect(choiceProblems(choices.map((c) => ({ ...c, kind: 'email' as const })))).toEqual(['Only one column can be the email.'])
  })

  test('the rows as they will be imported, and why one will be refused', () => {
    const shown = importedRows({ header: ['Mail', 'Plan', 'Junk'], rows: [['a@x.io', 'pro', 'j'], ['nope', 'free', ''], ['b@x.io']], utf8: true }, choices)
    expect(shown).toEqual({
      columns: ['email', 'Plan'],
      rows: [
        { cells: ['a@x.io', 'pro'], refused: undefined },
        { cells: ['nope', 'free'], refused: 'not a valid address' },
        { cells: ['b@x.io', ''], refused: 'the row has 1 field where the header has 3' },
      ],
    })
  })
})
