import { headerValue, type Field } from './raw-message.ts'

/** How a receiver would judge one thing about a message. `info` is said, not judged. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'info'

export interface Check {
  id: string
  name: string
  status: CheckStatus
  detail: string
}

export const check = (id: string, name: string, status: CheckStatus, detail: string): Check => ({ id, name, status, detail })

/**
 * Bulk mail as a receiver tells it: it says so (Precedence: bulk or list, as campaign mail does)
 * or belongs to a list (List-Id). Gmail's and Yahoo's sender rules hold such mail to more.
 */
export const isBulk = (fields: Field[]) =>
  /^(bulk|list)$/i.test(headerValue(fields, 'precedence') ?? '') || fields.some((f) => f.name === 'list-id')

/** The h= tag of each DKIM-Signature, lower case, in order (an empty list for a signature without one). */
export function signedHeaderLists(fields: Field[]): string[][] {
  return fields
    .filter((f) => f.name === 'dkim-signature')
    .map((f) => /(?:^|;)\s*h\s*=([^;]*)/i.exec(f.value)?.[1]?.split(':').map((name) => name.replace(/\s+/g, '').toLowerCase()).filter(Boolean) ?? [])
}

/** A Message-ID is present and has the <left@right> form (RFC 5322 3.6.4). */
export function messageIdCheck(fields: Field[]): Check {
  const value = headerValue(fields, 'message-id')
  const name = 'Message-ID'
  if (value === undefined) return check('message-id', name, 'fail', 'No Message-ID: receivers score mail without one as spam')
  if (!/^<[^<>@\s]+@[^<>@\s]+>$/.test(value)) return check('message-id', name, 'warn', `${value} is not of the form <id@host>`)
  return check('message-id', name, 'pass', value)
}

/** A Date is present and reads as a time (RFC 5322 3.6.1). */
export function dateCheck(fields: Field[]): Check {
  const value = headerValue(fields, 'date')
  if (value === undefined) return check('date', 'Date', 'fail', 'No Date: it is one of the two fields every message must have')
  if (Number.isNaN(Date.parse(value))) return check('date', 'Date', 'fail', `${value} is not a date`)
  return check('date', 'Date', 'pass', value)
}

const signedByAll = (lists: string[][], name: string) => lists.length > 0 && lists.every((list) => list.includes(name))

/**
 * Bulk mail offers one-click unsubscribe (RFC 8058): an https List-Unsubscribe, List-Unsubscribe-Post
 * saying List-Unsubscribe=One-Click, both signed by DKIM, as Gmail and Yahoo require of bulk senders.
 */
export function listUnsubscribeCheck(fields: Field[]): Check {
  const [id, name] = ['list-unsubscribe', 'One-click unsubscribe']
  const value = headerValue(fields, 'list-unsubscribe')
  const post = headerValue(fields, 'list-unsubscribe-post')
  if (!isBulk(fields)) {
    return check(id, name, 'info', value === undefined ? 'Not needed: this is not bulk mail' : `Transactional mail with List-Unsubscribe: ${value}`)
  }
  if (value === undefined) return check(id, name, 'fail', 'Bulk mail without List-Unsubscribe: Gmail and Yahoo require one-click unsubscribe')
  if (!/<https:\/\/[^>]+>/i.test(value)) return check(id, name, 'fail', `List-Unsubscribe names no https URI: ${value}`)
  if (post !== 'List-Unsubscribe=One-Click') return check(id, name, 'fail', 'List-Unsubscribe-Post: List-Unsubscribe=One-Click is missing (RFC 8058)')
  const lists = signedHeaderLists(fields)
  if (!signedByAll(lists, 'list-unsubscribe') || !signedByAll(lists, 'list-unsubscribe-post')) {
    return check(id, name, 'fail', 'List-Unsubscribe and List-Unsubscribe-Post must both be signed by DKIM (RFC 8058 4)')
  }
  return check(id, name, 'pass', value)
}

/** Bulk mail carries Feedback-ID, which Gmail's feedback loop reports complaints by. */
export function feedbackIdCheck(fields: Field[]): Check {
  const value = headerValue(fields, 'feedback-id')
  if (!isBulk(fields)) return check('feedback-id', 'Feedback-ID', 'info', value ?? 'Not needed: this is not bulk mail')
  if (value === undefined) return check('feedback-id', 'Feedback-ID', 'warn', "Bulk mail without Feedback-ID: Gmail's feedback loop cannot tell which campaign was complained about")
  return check('feedback-id', 'Feedback-ID', 'pass', value)
}

/**
 * The envelope sender (Return-Path at the receiver) carries an opaque bounce token: it must not
 * name the recipient or the email, which would tell anyone who sees a bounce whom it was for.
 */
export function returnPathCheck(envelope: string | undefined, recipient: string | undefined, emailId: string): Check {
  const [id, name] = ['return-path', 'Return-Path']
  if (envelope === undefined) return check(id, name, 'info', 'No delivery yet: the envelope sender is made for each recipient')
  const local = envelope.slice(0, envelope.lastIndexOf('@')).toLowerCase()
  const named = [recipient?.toLowerCase(), recipient?.split('@')[0]?.toLowerCase(), emailId.toLowerCase()].filter((s): s is string => !!s && s.length > 2)
  if (named.some((s) => local.includes(s))) return check(id, name, 'fail', `${envelope} names the recipient or the email: a bounce token must be opaque`)
  return check(id, name, 'pass', `${envelope}: an opaque bounce token`)
}
