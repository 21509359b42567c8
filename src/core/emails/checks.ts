import { invalid } from '../../lib/errors.ts'
import { NOT_IN_ONE_LINE } from '../templates/subject.ts'
import { API_REFUSAL, fieldRule } from './header-fields.ts'

const HEADER_NAME = /^[!-9;-~]{1,100}$/

/** Custom headers: printable names, one-line values (no header injection), none that HEADER_FIELDS keeps from applications. */
export function checkHeaders(headers: Record<string, unknown>, field = 'headers'): Record<string, string> {
  const entries = Object.entries(headers)
  if (entries.length > 50) throw invalid(field, 'at most 50 headers')
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) throw invalid(`${field}.${name.slice(0, 100)}`, 'is not a valid header name')
    if (typeof value !== 'string') throw invalid(`${field}.${name}`, 'must be a string')
    if (NOT_IN_ONE_LINE.test(value) || !value.isWellFormed()) throw invalid(`${field}.${name}`, 'must be one line of text: no line breaks or control characters')
    if (value.length > 2000) throw invalid(`${field}.${name}`, 'must be at most 2000 characters')
    const rule = fieldRule(name)
    if (rule) throw invalid(`${field}.${name}`, API_REFUSAL[rule])
  }
  return headers as Record<string, string>
}

export interface Attachment {
  filename: string
  /** Base64. */
  content: string
  contentType?: string
}

export const MAX_ATTACHMENTS = 10
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024

// Checked as length and alphabet: a regex with a repeated group gives up on multi-megabyte input.
const isBase64 = (text: string) => text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text)

/** At most 10 attachments of valid base64, 10 MiB in all once decoded. */
export function checkAttachments(attachments: readonly Attachment[], field = 'attachments'): Attachment[] {
  if (attachments.length > MAX_ATTACHMENTS) throw invalid(field, `at most ${MAX_ATTACHMENTS} attachments`)
  let total = 0
  return attachments.map((attachment, i) => {
    const at = `${field}[${i}]`
    if (!attachment.filename || /[\r\n\u0000/\\]/.test(attachment.filename) || attachment.filename.length > 255) {
      throw invalid(`${at}.filename`, 'must be a file name of 1 to 255 characters without slashes or line breaks')
    }
    if (attachment.contentType !== undefined && !/^[\w.+-]+\/[\w.+-]+$/.test(attachment.contentType)) {
      throw invalid(`${at}.contentType`, 'must be a MIME type such as application/pdf')
    }
    const content = attachment.content.replace(/\s+/g, '')
    if (!isBase64(content)) throw invalid(`${at}.content`, 'must be base64')
    total += (content.length / 4) * 3 - (content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0)
    if (total > MAX_ATTACHMENT_BYTES) throw invalid(field, 'must be at most 10 MiB in all')
    return { ...attachment, content }
  })
}
