import { DEFAULT_REGION } from '../../config/config-schema.ts'
import type { Db } from '../../db/schema.ts'
import { conflict, invalid, notFound } from '../../lib/errors.ts'
import { seal } from '../../lib/sealed.ts'
import { domainChecked } from '../reactions.ts'
import { generateDkimKeys } from './dkim-keys.ts'
import { checkDomainName } from './domain-name.ts'
import { readFindings, type Findings } from './domain.ts'
import * as repo from './domains.repository.ts'
import { expectedRecords, type RecordKind, type Verdict } from './records.ts'
import { nextSelector } from './selector.ts'
import { nextState, recordStatus } from './status.ts'
import { UNCLAIMED, type Claimant } from '../../db/claims.ts'

export interface DomainSettings {
  /** Seals the private keys at rest. */
  secret: string
  hostname: string
  returnPathLabel: string
  regions: readonly string[]
  graceMs: number
  pendingCheckMs: number
  verifiedCheckMs: number
}

/** What sealing private keys is for: a key derived for this purpose alone. */
export const DKIM_KEY_PURPOSE = 'dkim-private-key'

export const allowedRegions = (settings: Pick<DomainSettings, 'regions'>) => [DEFAULT_REGION, ...settings.regions]

export interface DomainDraft {
  name: string
  region: string
  rsa: { publicKey: string; sealedPrivateKey: string }
  ed25519: { publicKey: string; sealedPrivateKey: string }
}

/** Checks the input and makes the keys, before any transaction: key generation takes a while. */
export async function draftDomain(input: { name: string; region: string }, settings: DomainSettings): Promise<DomainDraft> {
  const name = checkDomainName(input.name)
  const regions = allowedRegions(settings)
  if (!regions.includes(input.region)) throw invalid('region', `must be one of ${regions.join(', ')}`)
  const keys = await generateDkimKeys()
  const sealed = (pem: string) => seal(settings.secret, DKIM_KEY_PURPOSE, pem)
  return {
    name,
    region: input.region,
    rsa: { publicKey: keys.rsa.publicKey, sealedPrivateKey: sealed(keys.rsa.privateKeyPem) },
    ed25519: { publicKey: keys.ed25519.publicKey, sealedPrivateKey: sealed(keys.ed25519.privateKeyPem) },
  }
}

export async function addDomain(db: Db, projectId: number, draft: DomainDraft, settings: DomainSettings, now: number) {
  const sameName = await repo.findDomainsByName(db, draft.name)
  if (sameName.some((d) => d.project_id === projectId)) throw conflict(`The domain ${draft.name} is already in this project`)
  if (sameName.some((d) => d.status === 'SUCCESS')) {
    throw conflict(`The domain ${draft.name} is already verified by another project`, 'Ask the operator to remove it there first.')
  }
  const taken = new Set(sameName.flatMap((d) => [d.dkim_selector, d.ed25519_selector]))
  const selector = nextSelector(taken, now)
  return repo.insertDomain(db, {
    project_id: projectId,
    name: draft.name,
    region: draft.region,
    status: 'NOT_STARTED',
    return_path_label: settings.returnPathLabel,
    dkim_selector: selector,
    dkim_public_key: draft.rsa.publicKey,
    dkim_private_key: draft.rsa.sealedPrivateKey,
    ed25519_selector: `${selector}-ed`,
    ed25519_public_key: draft.ed25519.publicKey,
    ed25519_private_key: draft.ed25519.sealedPrivateKey,
    next_check_at: now,
    created_at: now,
    updated_at: now,
  })
}

export async function getDomain(db: Db, projectId: number, id: number) {
  const row = await repo.findDomain(db, projectId, id)
  if (!row) throw notFound('Domain')
  return row
}

/** The project's domain, or undefined when it was removed. */
export const findDomainOf = (db: Db, projectId: number, id: number) => repo.findDomain(db, projectId, id)

export async function removeDomain(db: Db, projectId: number, id: number) {
  const result = await repo.deleteDomain(db, projectId, id)
  if (result.numDeletedRows === 0n) throw notFound('Domain')
  return { id, success: true, message: 'Domain deleted' }
}

/** The tracking switches of a domain: its marketing mail's (openTracking, clickTracking) and its transactional mail's. */
export interface TrackingFlags {
  openTracking?: boolean
  clickTracking?: boolean
  transactionalOpenTracking?: boolean
  transactionalClickTracking?: boolean
}

const TRACKING_COLUMNS = {
  openTracking: 'open_tracking',
  clickTracking: 'click_tracking',
  transactionalOpenTracking: 'transactional_open_tracking',
  transactionalClickTracking: 'transactional_click_tracking',
} as const

export async function setTracking(db: Db, projectId: number, id: number, flags: TrackingFlags, now: number) {
  await getDomain(db, projectId, id)
  const changes = Object.fromEntries(
    Object.entries(TRACKING_COLUMNS).flatMap(([flag, column]) => (typeof flags[flag as keyof TrackingFlags] === 'boolean' ? [[column, flags[flag as keyof TrackingFlags] ? 1 : 0]] : [])),
  )
  return (await repo.updateDomain(db, id, { ...changes, updated_at: now }))!
}

/** Claims a check and marks it running; undefined when the domain is gone or a check already runs. */
export const beginCheck = (db: Db, claimant: Claimant, id: number, now: number) => repo.beginDomainCheck(db, claimant, id, now)

/** A check that failed: the domain waits for its next one. */
export const abandonCheck = (db: Db, id: number) => repo.updateDomain(db, id, { is_verifying: 0, ...UNCLAIMED })

/** Saves what a check found and moves the domain's status; schedules the next check. */
export async function finishCheck(db: Db, id: number, verdicts: Map<RecordKind, Verdict>, settings: DomainSettings, now: number) {
  const row = await repo.findDomainById(db, id)
  if (!row) return undefined
  const records = expectedRecords(row, settings.hostname)
  const required = records.filter((r) => r.required).map((r) => verdicts.get(r.kind)!)
  const state = nextState(row, required, now, settings.graceMs)
  const previous = readFindings(row)
  const findings: Findings = {}
  for (const record of records) {
    const verdict = verdicts.get(record.kind)!
    findings[record.kind] = {
      status: recordStatus(verdict, state.status, previous[record.kind]?.status),
      found: verdict.found,
      ...(verdict.result !== 'ok' && { problem: verdict.problem }),
    }
  }
  const updated = await repo.updateDomain(db, id, {
    ...state,
    findings: JSON.stringify(findings),
    error_message: errorMessage(state.status, required, settings),
    is_verifying: 0,
    ...UNCLAIMED,
    last_checked_at: now,
    next_check_at: now + (state.status === 'SUCCESS' ? settings.verifiedCheckMs : settings.pendingCheckMs),
    updated_at: now,
  })
  if (updated) await domainChecked(db, row, updated, now)
  return updated
}

function errorMessage(status: string, required: Verdict[], settings: DomainSettings): string | null {
  const unavailable = required.find((v) => v.result === 'unavailable')
  if (unavailable && unavailable.result !== 'ok') return `DNS could not be checked: ${unavailable.problem}`
  const hours = Math.round(settings.graceMs / 3_600_000)
  if (status === 'FAILED') return `Required records were still not right after ${hours} h; fix them and verify again`
  if (status === 'TEMPORARY_FAILURE') return `Required records are no longer right; the domain fails if they stay so for ${hours} h`
  return null
}

/**
 * The DKIM key records of the project's domains as Mailstead holds them, each with whether the last
 * DNS check found it published: what a receiver's DKIM lookup would get, answered without DNS.
 */
export async function heldDkimKeys(db: Db, projectId: number) {
  const domains = await repo.listDomains(db, projectId)
  return domains.flatMap((row) => {
    const findings = readFindings(row)
    return expectedRecords(row, '')
      .filter((r) => r.kind === 'dkim' || r.kind === 'dkim-ed25519')
      .map((r) => ({ name: r.name.toLowerCase(), value: r.value, published: findings[r.kind]?.status === 'SUCCESS' }))
  })
}
