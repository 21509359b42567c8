/** RFC 5322 2.1.1: a line is at most 998 octets, its CRLF not counted. */
export const MAX_LINE_OCTETS = 998

const NUL = 0x00
const LF = 0x0a
const CR = 0x0d

/**
 * Why a raw message cannot be passed on as it is, or undefined: a NUL byte (RFC 5322 and 8BITMIME
 * forbid it), a CR that does not end a line (the SMTP client turns it into a line break, so a
 * header line "From: a\rBcc: b" would arrive as two fields), or a line over 998 octets. Bare LF
 * line ends are accepted: they are read as line ends here and sent as CRLF.
 *
 * Native searches only (no loop over every byte): about one indexOf per line.
 */
export function lineProblem(raw: Uint8Array): string | undefined {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
  const nul = bytes.indexOf(NUL)
  if (nul >= 0) return `it has a NUL byte (at octet ${nul + 1})`
  let nextCr = bytes.indexOf(CR)
  let start = 0
  for (let line = 1; start < bytes.length; line++) {
    const lf = bytes.indexOf(LF, start)
    const end = lf < 0 ? bytes.length : lf
    const contentEnd = end > start && bytes[end - 1] === CR && lf >= 0 ? end - 1 : end
    if (nextCr >= 0 && nextCr < contentEnd) return `line ${line} has a CR that does not end the line (lines end with CRLF)`
    if (contentEnd - start > MAX_LINE_OCTETS) {
      return `line ${line} is ${contentEnd - start} octets long, over the limit of ${MAX_LINE_OCTETS} (fold long header lines; encode long body lines as quoted-printable or base64)`
    }
    if (lf < 0) break
    start = lf + 1
    if (nextCr >= 0 && nextCr < start) nextCr = bytes.indexOf(CR, start)
  }
  return undefined
}
