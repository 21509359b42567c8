import { simpleParser, type AddressObject, type HeaderValue } from 'mailparser'
import { checkAddress } from '../lib/address.ts'

/** What the report says of the message it is about, from the returned message or headers. */
export interface OriginalMessage {
  /** Message-ID of the original, with angle brackets, e.g. "<abc@example.com>"; null when not found. */
  messageId: string | null
  /** The original's Return-Path / envelope sender address when present (without <>), else null. */
  returnPath: string | null
  /** The addresses of the original's To and Cc headers, lower-cased, for matching; empty when not found. */
  to: string[]
  /** The domain of its (first) From address, ASCII and lower case: whose mail it was; null when not found. */
  fromDomain: string | null
}

export const noOriginal = (): OriginalMessage => ({ messageId: null, returnPath: null, to: [], fromDomain: null })

/**
 * What the header section of a returned message (message/rfc822, message/global,
 * text/rfc822-headers, or a copy quoted in a plain bounce) says. Only the header section is
 * parsed: the body can be large and says nothing of use here.
 */
export async function originalOf(message: Buffer): Promise<OriginalMessage> {
  const parsed = await simpleParser(headerSection(message), { skipHtmlToText: true, skipTextToHtml: true })
  return {
    messageId: parsed.messageId ?? null,
    returnPath: addressesOf(parsed.headers.get('return-path'))[0] ?? null,
    to: [...new Set([...addressesOf(parsed.to), ...addressesOf(parsed.cc)].map((address) => address.toLowerCase()))],
    fromDomain: domainOf(addressesOf(parsed.from)[0]),
  }
}

/** An address's domain, ASCII and lower case (as it was written, lower-cased, when it is no domain we could send to). */
function domainOf(address: string | undefined): string | null {
  if (address === undefined) return null
  const checked = checkAddress(address)
  return checked.ok ? checked.value.asciiDomain : address.slice(address.lastIndexOf('@') + 1).toLowerCase() || null
}

/** The bytes up to and including the blank line that ends the header section (all when none does). */
export function headerSection(message: Buffer): Buffer {
  const crlf = message.indexOf('\r\n\r\n')
  const lf = message.indexOf('\n\n')
  const ends = [crlf < 0 ? -1 : crlf + 4, lf < 0 ? -1 : lf + 2].filter((end) => end > 0)
  return ends.length === 0 ? message : message.subarray(0, Math.min(...ends))
}

/** The addresses an address header holds, groups opened, empty ones (`<>`) left out. */
function addressesOf(value: HeaderValue | AddressObject | AddressObject[] | undefined): string[] {
  const objects = (Array.isArray(value) ? value : [value]).filter(isAddressObject)
  const mailboxes = objects.flatMap((object) => object.value.flatMap((entry) => [entry, ...(entry.group ?? [])]))
  return mailboxes.map((mailbox) => mailbox.address?.trim() ?? '').filter((address) => address !== '')
}

const isAddressObject = (value: unknown): value is AddressObject =>
  typeof value === 'object' && value !== null && Array.isArray((value as AddressObject).value)
