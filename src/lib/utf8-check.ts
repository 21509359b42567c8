import { isUtf8 } from 'node:buffer'

const NEWLINE = 0x0a

/** Bytes a UTF-8 sequence starting with `lead` takes; 0 for a byte that cannot start one. */
const sequenceLength = (lead: number) => (lead < 0x80 ? 1 : lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0)

/** Where `bytes` stops being whole characters: a sequence cut at its end starts there. */
function wholeUpTo(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    if ((bytes[i]! & 0xc0) === 0x80) continue
    const length = sequenceLength(bytes[i]!)
    return length > bytes.length - i ? i : bytes.length
  }
  return bytes.length
}

function countLines(bytes: Buffer): number {
  let lines = 0
  for (let at = bytes.indexOf(NEWLINE); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) lines++
  return lines
}

/**
 * Checks a stream's bytes are UTF-8 as they pass, chunk by chunk, without holding more than a cut
 * character between chunks. `push` answers the physical line (1 first) holding the first bytes that
 * are not UTF-8, or undefined while all is well; `end` the same for a character the stream cut short.
 */
export function createUtf8Check() {
  let carried = Buffer.alloc(0)
  let line = 1
  return {
    push(chunk: Buffer): number | undefined {
      const bytes = carried.length ? Buffer.concat([carried, chunk]) : chunk
      const whole = wholeUpTo(bytes)
      const checked = bytes.subarray(0, whole)
      if (!isUtf8(checked)) return line + badLineOffset(checked)
      line += countLines(checked)
      carried = Buffer.from(bytes.subarray(whole))
      return undefined
    },
    end: (): number | undefined => (carried.length ? line : undefined),
  }
}

/** Which line of `bytes` (0 first) holds the bytes that are not UTF-8: lines break only between characters. */
function badLineOffset(bytes: Buffer): number {
  let start = 0
  for (let index = 0; ; index++) {
    const end = bytes.indexOf(NEWLINE, start)
    if (!isUtf8(bytes.subarray(start, end < 0 ? bytes.length : end)) || end < 0) return index
    start = end + 1
  }
}
