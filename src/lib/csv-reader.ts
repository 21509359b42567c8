/**
 * A streaming CSV reader (RFC 4180: comma-separated, `"` quotes, `""` inside quotes for a quote,
 * line breaks \n or \r\n) that works on bytes, so that every record carries the byte offset and
 * physical line where the next one starts: what a resumed import seeks to.
 *
 * It is written here rather than taken from csv-parse because an import must outlive bad input:
 * csv-parse's record size limit ends the whole parse (a 10 MB line would stop the import), and
 * its positions are not resumable offsets. Here a record longer than the limit is read on without
 * being kept and reported as one failed record; memory stays within the limit.
 */

const COMMA = 0x2c
const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d

export interface CsvPosition {
  /** Byte offset in the file. */
  offset: number
  /** Physical line number (1 for the first line) of the byte at `offset`. */
  line: number
}

export interface CsvItem {
  /** The physical line the record starts on. */
  line: number
  /** The record's fields; absent when it could not be read, and then `error` says why. */
  fields?: string[]
  error?: string
  /** Where the record after this one starts. */
  next: CsvPosition
}

export interface CsvReaderOptions {
  /** A record longer than this, in bytes, is reported instead of read. */
  maxRecordBytes: number
  /** Where the bytes pushed first sit in the file: a resumed read starts mid-file. */
  start?: CsvPosition
}

// What the reader is in the middle of.
const FIELD_START = 0
const UNQUOTED = 1
const QUOTED = 2
/** A quote inside a quoted field: the end of the field, or the first of a doubled quote. */
const QUOTE_IN_QUOTED = 3
/** A carriage return after a closing quote: a line break must follow. */
const CR_AFTER_QUOTE = 4

/**
 * Push bytes in as they are read and call `end()` at the end of the input; each record comes out
 * through `emit`. Empty lines (and lines of only blanks) are skipped. A UTF-8 byte order mark is
 * skipped at offset 0. A quote inside an unquoted field is taken as a character.
 */
export class CsvReader {
  private state = FIELD_START
  private fields: string[] = []
  /** Parts of the current field already past: earlier chunks, or before a doubled quote. */
  private pieces: Uint8Array[] = []
  /** Where the current field's bytes in the current chunk start. */
  private from = 0
  private quoted = false
  private error: string | undefined
  /** The current record is too long: it is read to its end without keeping it. */
  private skipping = false
  private skippedInQuotes = false
  private recordStart: CsvPosition
  private line: number
  /** The file offset of the current chunk's first byte. */
  private base: number
  /** The file's first bytes while fewer than three have come: undefined once past them. */
  private head: Uint8Array | undefined

  constructor(
    private readonly options: CsvReaderOptions,
    private readonly emit: (item: CsvItem) => void,
  ) {
    const start = options.start ?? { offset: 0, line: 1 }
    this.recordStart = { ...start }
    this.line = start.line
    this.base = start.offset
    if (start.offset === 0) this.head = new Uint8Array(0)
  }

  push(chunk: Uint8Array): void {
    if (this.head !== undefined) {
      // The first bytes of the file: skip a byte order mark once three are there to look at.
      const joined = concat(this.head, chunk)
      if (joined.length < 3) {
        this.head = joined
        return
      }
      this.head = undefined
      chunk = joined
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        this.base = this.recordStart.offset = 3
        chunk = chunk.subarray(3)
      }
    }
    this.scan(chunk)
    this.keepPartialField(chunk)
    this.base += chunk.length
    if (!this.skipping && this.base - this.recordStart.offset > this.options.maxRecordBytes) this.startSkipping()
  }

  end(): void {
    if (this.head !== undefined) {
      const head = this.head
      this.head = undefined
      this.scan(head)
      this.keepPartialField(head)
      this.base += head.length
    }
    if (this.state === FIELD_START && this.fields.length === 0) return
    if (this.state === QUOTED) this.error ??= 'a quoted field is not closed before the end of the file'
    const atEnd = Buffer.alloc(0)
    const unquoted = this.state === UNQUOTED
    this.endField(atEnd, 0)
    const last = this.fields.length - 1
    if (unquoted && this.fields[last]?.endsWith('\r')) this.fields[last] = this.fields[last]!.slice(0, -1)
    this.endRecord(atEnd, 0, 0)
  }

  private scan(buf: Uint8Array): void {
    const length = buf.length
    let i = 0
    this.from = 0
    while (i < length) {
      const state = this.state
      if (state === UNQUOTED) {
        let c = 0
        while (i < length && (c = buf[i]!) !== COMMA && c !== LF) i++
        if (i === length) break
        let end = i
        if (c === LF && end > this.from && buf[end - 1] === CR) end--
        this.endField(buf, end)
        if (c === LF) this.endRecord(buf, i, 1)
        else this.state = FIELD_START
        this.from = ++i
      } else if (state === QUOTED) {
        let c = 0
        while (i < length && (c = buf[i]!) !== QUOTE) {
          if (c === LF) this.line++
          i++
        }
        if (i === length) break
        this.addPiece(buf, i)
        this.state = QUOTE_IN_QUOTED
        this.from = ++i
      } else {
        i = this.step(buf, i, state)
      }
    }
  }

  /** One byte at a field's start or after a quote; returns where to go on. */
  private step(buf: Uint8Array, i: number, state: number): number {
    const c = buf[i]!
    if (state === FIELD_START) {
      if (c === QUOTE) {
        this.quoted = true
        this.state = QUOTED
        this.from = i + 1
        return i + 1
      }
      this.from = i
      this.state = UNQUOTED
      return i
    }
    if (state === QUOTE_IN_QUOTED && c === QUOTE) {
      // A doubled quote: the second one is the field's character.
      this.from = i
      this.state = QUOTED
      return i + 1
    }
    if (c === COMMA || c === LF) {
      this.endField(buf, i)
      if (c === LF) this.endRecord(buf, i, 1)
      else this.state = FIELD_START
      this.from = i + 1
      return i + 1
    }
    if (c === CR && state === QUOTE_IN_QUOTED) {
      this.state = CR_AFTER_QUOTE
      this.from = i + 1
      return i + 1
    }
    this.error ??= 'a closing quote must be followed by a comma or the end of the line'
    this.from = i
    this.state = UNQUOTED
    return i
  }

  private addPiece(buf: Uint8Array, end: number): void {
    if (!this.skipping && end > this.from) this.pieces.push(buf.subarray(this.from, end))
  }

  private endField(buf: Uint8Array, end: number): void {
    if (this.skipping) return
    const inQuotes = this.state === QUOTE_IN_QUOTED || this.state === CR_AFTER_QUOTE
    let text: string
    if (this.pieces.length === 0) text = inQuotes ? '' : decode(buf, this.from, end)
    else {
      if (!inQuotes) this.addPiece(buf, end)
      text = Buffer.concat(this.pieces).toString('utf8')
      this.pieces = []
    }
    this.fields.push(text)
  }

  /** Ends the record whose line break (of `breakLength` bytes) is at `at`. */
  private endRecord(buf: Uint8Array, at: number, breakLength: number): void {
    const next = { offset: this.base + at + breakLength, line: this.line + breakLength }
    const line = this.recordStart.line
    const fields = this.fields
    const blank = fields.length === 1 && !this.quoted && fields[0]!.trim() === ''
    if (this.skipping || next.offset - this.recordStart.offset > this.options.maxRecordBytes + breakLength) {
      this.emit({ line, error: this.tooLong(this.skipping ? this.skippedInQuotes : false), next })
    } else if (this.error) this.emit({ line, error: this.error, next })
    else if (!blank) this.emit({ line, fields, next })
    this.line = next.line
    this.recordStart = { ...next }
    this.fields = []
    this.pieces = []
    this.quoted = false
    this.error = undefined
    this.skipping = this.skippedInQuotes = false
    this.state = FIELD_START
  }

  /** At a chunk's end, the current field's bytes so far are kept: the chunk is not. */
  private keepPartialField(buf: Uint8Array): void {
    if (this.state === UNQUOTED || this.state === QUOTED) this.addPiece(buf, buf.length)
    this.pieces = this.pieces.map((piece) => (piece.buffer === buf.buffer ? Uint8Array.from(piece) : piece))
    this.from = 0
  }

  private startSkipping(): void {
    this.skipping = true
    this.skippedInQuotes = this.state === QUOTED || this.state === QUOTE_IN_QUOTED
    this.fields = []
    this.pieces = []
  }

  private tooLong(inQuotes: boolean): string {
    const limit = `the record is longer than ${describeBytes(this.options.maxRecordBytes)}`
    return inQuotes ? `${limit}: is a closing quote missing?` : limit
  }
}

const decode = (buf: Uint8Array, from: number, to: number): string =>
  (Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.length)).toString('utf8', from, to)

const concat = (a: Uint8Array | undefined, b: Uint8Array): Uint8Array => (a ? Buffer.concat([a, b]) : b)

const describeBytes = (bytes: number): string =>
  bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`
