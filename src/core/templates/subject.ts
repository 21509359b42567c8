import { invalid } from '../../lib/errors.ts'

/**
 * What may not stand in a header line: line breaks, the other control characters (RFC 5322 2.2
 * allows printable characters and whitespace) and Unicode's line and paragraph separators. A tab
 * is whitespace, so it may.
 */
export const NOT_IN_ONE_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/

/**
 * A subject is one line of at most 998 characters (RFC 5322 line limit) of well-formed text. What
 * stores a subject to send later (templates, campaigns, workflow steps) checks it with this when it
 * is saved, so that it is not refused on every send instead.
 */
export function checkSubject(subject: string, field = 'subject'): string {
  if (subject.trim() === '') throw invalid(field, 'must not be empty')
  if (NOT_IN_ONE_LINE.test(subject)) throw invalid(field, 'must be one line: no line breaks, NUL or other control characters')
  if (!subject.isWellFormed()) throw invalid(field, 'is not well-formed Unicode: it holds a lone UTF-16 surrogate')
  if (subject.length > 998) throw invalid(field, 'must be at most 998 characters')
  return subject
}
