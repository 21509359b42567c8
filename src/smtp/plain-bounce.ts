/** What a message that is not a multipart/report shows of itself. */
export interface MessageLook {
  /** The From address. */
  from: string | undefined
  subject: string | undefined
  /** The plain text body. */
  text: string | undefined
}

const BOUNCE_SENDER = /^(mailer-daemon|mail-daemon|mailerdaemon|postmaster)@/i
const BOUNCE_SUBJECT =
  /undeliver(ed|able)|returned mail|returning message to sender|delivery status notification|delivery (failure|failed|has failed|problem|incomplete)|failure notice|mail delivery (failed|failure)|non-?delivery|could not be delivered/i
const QMAIL = /^Hi\. This is the qmail-send program/m

/**
 * Whether a message is a bounce written for people rather than as RFC 3464 (qmail, old servers,
 * some hosted mail): sent by the mailer daemon or postmaster, titled like a bounce, or written by qmail.
 */
export function looksLikeBounce(look: MessageLook): boolean {
  return BOUNCE_SENDER.test(look.from ?? '') || BOUNCE_SUBJECT.test(look.subject ?? '') || QMAIL.test(look.text ?? '')
}

/** The lines that bounces put before the copy of the returned message. */
const COPY_MARKER =
  /^[ \t]*-{2,}[ \t]*(below this line is a copy of the message|this is a copy of the message|(the )?original message|returned message|message headers? follows?|unsent message below|undelivered message)\b.*$/im
/** Where a copy begins when no marker says so: the first header line of the original. */
const FIRST_HEADER = /^(Return-Path|Received|Message-ID)[ \t]*:/im

/**
 * A plain bounce's text split in two: the notice (what the server says, for the reply
 * classifier) and the copy of the returned message after it (its headers name the original).
 * `copy` is null when the bounce returned nothing.
 */
export function splitBounceText(text: string): { notice: string; copy: string | null } {
  const marker = COPY_MARKER.exec(text)
  if (marker) return { notice: text.slice(0, marker.index).trim(), copy: text.slice(marker.index + marker[0].length).replace(/^\s*\n/, '') }
  const header = FIRST_HEADER.exec(text)
  if (header) return { notice: text.slice(0, header.index).trim(), copy: text.slice(header.index) }
  return { notice: text.trim(), copy: null }
}

/** An addr-spec in running text: dot-atom local part (UTF-8 allowed) @ a domain of two labels or more. */
const ADDRESS_IN_TEXT = /[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF.-]+@[A-Za-z0-9\u0080-\uFFFF-]+(?:\.[A-Za-z0-9\u0080-\uFFFF-]+)+/g

/**
 * The addresses a bounce's notice quotes (`<ghost@example.org>:`, `alice@example.net... User
 * unknown`), lower-cased, each once: what a plain bounce says it is about. An address is taken
 * whole, so `jimbob@example.net` never reads as `bob@example.net`.
 */
export function quotedAddresses(notice: string): string[] {
  const found = (notice.match(ADDRESS_IN_TEXT) ?? []).map((address) => address.replace(/^\.+|\.+$/g, '').toLowerCase())
  return [...new Set(found.filter((address) => /^[^@]+@/.test(address)))]
}
