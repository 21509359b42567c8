import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

/**
 * The certificates of a PEM file of extra CAs to trust (MAILSTEAD_DELIVERY_CA_FILE), each
 * checked to be a certificate. Throws an error that names the file and what is wrong with it.
 */
export function readCaFile(path: string): string[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(`cannot read the CA file ${path}: ${(error as Error).message}`)
  }
  return parseCaPem(text, path)
}

/** The certificates of PEM text; `source` names it in errors. */
export function parseCaPem(text: string, source = 'the CA text'): string[] {
  const blocks = text.match(PEM_BLOCK) ?? []
  if (blocks.length === 0) throw new Error(`${source} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`)
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block)
    } catch (error) {
      throw new Error(`certificate ${index + 1} of ${source} cannot be read: ${(error as Error).message}`)
    }
  })
  return blocks.map((block) => `${block}\n`)
}

/**
 * What to pass as `ca` to TLS so that `extra` is trusted besides the well-known CAs: `ca` replaces
 * the default trust rather than adding to it, so the defaults are named too. Undefined when there
 * is nothing extra (the default trust applies as it is).
 */
export function trustedCas(extra: readonly string[] | undefined): string[] | undefined {
  if (!extra || extra.length === 0) return undefined
  return [...rootCertificates, ...extra]
}
