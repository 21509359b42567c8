import { dkimSign } from 'mailauth/lib/dkim/sign'

export interface SigningKey {
  /** d= */
  domain: string
  /** s= */
  selector: string
  privateKeyPem: string
  algorithm: 'rsa-sha256' | 'ed25519-sha256'
}

/** Signed when present (RFC 6376 5.4): what a forwarder must not change. */
export const SIGNED_HEADERS = [
  'from', 'to', 'cc', 'subject', 'date', 'message-id', 'reply-to', 'mime-version', 'content-type',
  'list-unsubscribe', 'list-unsubscribe-post',
].join(':')

/** The DKIM-Signature header(s) for a message, relaxed/relaxed, one per key, CRLF-terminated. */
export async function signMessage(message: Uint8Array, keys: readonly SigningKey[], at: number): Promise<string> {
  const result = await dkimSign(Buffer.from(message), {
    canonicalization: 'relaxed/relaxed',
    headerList: SIGNED_HEADERS,
    signTime: new Date(at),
    signatureData: keys.map((key) => ({
      signingDomain: key.domain,
      selector: key.selector,
      privateKey: key.privateKeyPem,
      algorithm: key.algorithm,
    })),
  } as never)
  if (result.errors?.length) throw new Error(`DKIM signing failed: ${result.errors.map((e: any) => e.message ?? e.error ?? e).join('; ')}`)
  return result.signatures
}
