import { describe, expect, test } from 'bun:test'
import { CsvReader, type CsvItem, type CsvPosition } from './csv-reader.ts'

/** Reads `input` pushed in pieces of `size` bytes. */
function read(input: string | Uint8Array, size = 1 << 20, options: { max?: number; start?: CsvPosition } = {}): CsvItem[] {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input
  const items: CsvItem[] = []
  const reader = new CsvReader({ maxRecordBytes: options.max ?? 1024, start: options.start }, (item) => items.push(item))
  const from = options.start?.offset ?? 0
  for (let i = from; i < bytes.length; i += size) reader.push(bytes.subarray(i, Math.min(i + size, bytes.length)))
  reader.end()
  return items
}

const rows = (items: CsvItem[]) => items.map((item) => [item.line, item.fields ?? item.error])

describe('CsvReader', () => {
  test('reads records with the line each starts on and where the next one starts', () => {
    expect(read('email,name\na@x.com,Ann\n')).toEqual([
      { line: 1, fields: ['email', 'name'], next: { offset: 11, line: 2 } },
      { line: 2, fields: ['a@x.com', 'Ann'], next: { offset: 23, line: 3 } },
    ])
  })

  test('quoted fields keep commas, line breaks and doubled quotes; line numbers count physical lines', () => {
    const text = 'a,b\n"x, y","line one\nline two"\n"say ""hi""",""\nlast,row'
    expect(rows(read(text))).toEqual([
      [1, ['a', 'b']],
      [2, ['x, y', 'line one\nline two']],
      [4, ['say "hi"', '']],
      [5, ['last', 'row']],
    ])
  })

  test('\\r\\n line breaks are taken off, inside quotes they are kept', () => {
    expect(rows(read('a,b\r\n"1\r\n2",3\r\nlast,x\r'))).toEqual([
      [1, ['a', 'b']],
      [2, ['1\r\n2', '3']],
      [4, ['last', 'x']],
    ])
  })

  test('empty and blank lines are skipped but counted', () => {
    expect(rows(read('a\n\n   \n\r\nb\n\n'))).toEqual([
      [1, ['a']],
      [5, ['b']],
    ])
  })

  test('a quoted blank is a record, not an empty line', () => {
    expect(rows(read('a\n" "\n'))).toEqual([
      [1, ['a']],
      [2, [' ']],
    ])
  })

  test('a byte order mark is skipped, even when it arrives a byte at a time', () => {
    const text = '\ufeffemail\nz@x.com\n'
    for (const size of [1, 2, 3, 100]) {
      const items = read(text, size)
      expect(rows(items)).toEqual([
        [1, ['email']],
        [2, ['z@x.com']],
      ])
      expect(items[0]!.next).toEqual({ offset: 9, line: 2 })
    }
  })

  test('every way of cutting the input into chunks reads the same', () => {
    const text = 'h1,h2\n"a ""q"" b","multi\r\nline",\n\ré,ü€😀\n"",x\n\nlast,"quoted"'
    const whole = read(text)
    for (let size = 1; size < 20; size++) expect(read(text, size)).toEqual(whole)
  })

  test('a record longer than the limit is reported by its line and the next ones are read', () => {
    const long = 'x'.repeat(5000)
    const text = `a,b\n1,2\n${long},3\n"${long}\n${long}",4\n5,6\n`
    for (const size of [7, 64, 100_000]) {
      expect(rows(read(text, size, { max: 1024 }))).toEqual([
        [1, ['a', 'b']],
        [2, ['1', '2']],
        [3, 'the record is longer than 1 KiB'],
        [4, size === 100_000 ? 'the record is longer than 1 KiB' : 'the record is longer than 1 KiB: is a closing quote missing?'],
        [6, ['5', '6']],
      ])
    }
  })

  test('a quote that is never closed is reported at the end of the file', () => {
    expect(rows(read('a\n"open\nmore\n'))).toEqual([
      [1, ['a']],
      [2, 'a quoted field is not closed before the end of the file'],
    ])
  })

  test('text after a closing quote spoils only its own record', () => {
    expect(rows(read('a,b\n"x"y,1\nok,2\n'))).toEqual([
      [1, ['a', 'b']],
      [2, 'a closing quote must be followed by a comma or the end of the line'],
      [3, ['ok', '2']],
    ])
  })

  test('a quote inside an unquoted field is an ordinary character', () => {
    expect(rows(read('5" screen,ok\n'))).toEqual([[1, ['5" screen', 'ok']]])
  })

  test('reading on from a record\'s next position gives the rest, with the same lines', () => {
    const text = 'h\n"a\nb"\n\nc\nd\n'
    const all = read(text)
    const resumed = read(text, 3, { start: all[1]!.next })
    expect(resumed).toEqual(all.slice(2))
  })
})
