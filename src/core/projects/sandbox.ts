import addressparser from 'nodemailer/lib/addressparser'
import type { Db } from '../../db/schema.ts'
import { checkAddress } from '../../lib/address.ts'
import { seal, unseal } from '../../lib/sealed.ts'
import { generateDkimKeys } from '../domains/dkim-keys.ts'
import { DKIM_KEY_PURPOSE } from '../domains/domains.service.ts'
import * as repo from './projects.repository.ts'

/** The selector of sandbox signatures: s=sandbox, d= the sender's domain. */
export const SANDBOX_SELECTOR = 'sandbox'

/** The ASCII domain of a From as stored ("Ada <ada@example.com>", a bare address, or a relayed header's value). */
export function domainOf(from: string): string | undefined {
  const address = addressparser(from, { flatten: true }).find((a) => a.address)?.address
  const checked = address ? checkAddress(address) : undefined
  return checked?.ok ? checked.value.asciiDomain : undefined
}

/**
 * The project's sandbox signing key, made at its first use and kept sealed in the database like a
 * domain's: the public half is what a receiver's check would look up at sandbox._domainkey.
 */
export async function sandboxKeyOf(
  db: Db,
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>,
  secret: string,
  projectId: number,
): Promise<{ privateKeyPem: string; publicKey: string }> {
  const stored = await repo.findSandboxKey(db, projectId)
  if (stored?.sandbox_dkim_private_key && stored.sandbox_dkim_public_key) {
    return { privateKeyPem: unseal(secret, DKIM_KEY_PURPOSE, stored.sandbox_dkim_private_key), publicKey: stored.sandbox_dkim_public_key }
  }
  const { rsa } = await generateDkimKeys()
  // Two processes may make one at once: the first stored stands, and both read it back.
  const kept = await write(async (trx) => {
    await repo.storeSandboxKey(trx, projectId, seal(secret, DKIM_KEY_PURPOSE, rsa.privateKeyPem), rsa.publicKey)
    return repo.findSandboxKey(trx, projectId)
  })
  if (!kept?.sandbox_dkim_private_key || !kept.sandbox_dkim_public_key) throw new Error(`Project ${projectId} was removed`)
  return { privateKeyPem: unseal(secret, DKIM_KEY_PURPOSE, kept.sandbox_dkim_private_key), publicKey: kept.sandbox_dkim_public_key }
}

/**
 * The DKIM record a receiver would find for the project's sandbox signatures at `domain` (any d=:
 * one key signs for every sender), or undefined before its first sandbox email: what a receiver's
 * check of sandbox mail is verified against, without DNS.
 */
export async function sandboxDkimRecord(db: Db, projectId: number, domain: string): Promise<{ name: string; value: string } | undefined> {
  const publicKey = (await repo.findSandboxKey(db, projectId))?.sandbox_dkim_public_key
  if (!publicKey) return undefined
  return { name: `${SANDBOX_SELECTOR}._domainkey.${domain}`.toLowerCase(), value: `v=DKIM1; k=rsa; p=${publicKey}` }
}
