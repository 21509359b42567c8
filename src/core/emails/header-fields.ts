/**
 * What an application may not write as it likes in a message's header block, by field name (lower
 * case). The HTTP sends refuse every field here in their custom `headers`, each for its reason;
 * the SMTP relay, which takes whole messages, acts on the same names:
 * - `server`: the server's own, or they must reach nobody. The relay removes them; the API writes
 *   them itself or not at all.
 * - `sender`: they say who sent the message. The relay lets them through only when every address
 *   they name is on a verified domain of the project; the API's only sender is its `from` field,
 *   on a verified domain too.
 * - `message`: the message's own fields, which the API builds from the send's fields (to, cc,
 *   replyTo, subject...) and the relay keeps as the application wrote them.
 */
export type FieldRule = 'server' | 'sender' | 'message'

export const HEADER_FIELDS: Readonly<Record<string, FieldRule>> = {
  // Bcc and Resent-Bcc would show the hidden recipients to everyone; Return-Path is written by the
  // final MTA from MAIL FROM (RFC 5321 4.4); Content-Length means nothing in SMTP. Postfix drops
  // the same four (message_drop_headers).
  bcc: 'server',
  'resent-bcc': 'server',
  'return-path': 'server',
  'content-length': 'server',
  // The relay's tracking switch (relay-tracking.ts): an instruction to this server, for no one else.
  'x-mailstead-track': 'server',
  from: 'sender',
  sender: 'sender',
  'resent-from': 'sender',
  'resent-sender': 'sender',
  to: 'message',
  cc: 'message',
  'reply-to': 'message',
  subject: 'message',
  date: 'message',
  'message-id': 'message',
  'mime-version': 'message',
  'content-type': 'message',
  'content-transfer-encoding': 'message',
  // The rest of a resent block (RFC 5322 3.6.6): only whoever resends a message writes it.
  'resent-to': 'message',
  'resent-cc': 'message',
  'resent-date': 'message',
  'resent-message-id': 'message',
  // Trace and signature: a relaying or signing MTA adds them; the API's mail has none before ours.
  received: 'message',
  'dkim-signature': 'message',
}

/** The rule for a field name, any case; undefined for a field the application may write. */
export const fieldRule = (name: string): FieldRule | undefined =>
  Object.hasOwn(HEADER_FIELDS, name.toLowerCase()) ? HEADER_FIELDS[name.toLowerCase()] : undefined

/** Why the API refuses a custom header of each rule. */
export const API_REFUSAL: Record<FieldRule, string> = {
  server: 'is set by Mailstead and cannot be given',
  sender: 'names who sends the message: only the send\'s from address, on a verified domain, may',
  message: 'is set by Mailstead, from the send\'s own fields where it has one, and cannot be given',
}
