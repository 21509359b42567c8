import { domainToASCII } from 'node:url'
import type { Db } from '../db/schema.ts'
import { hostAddresses } from '../dns/host-addresses.ts'
import type { Clock } from '../lib/clock.ts'
import { DnsUnavailableError, failureOf, recordsOf, type DnsAnswer, type Resolver } from '../lib/dns.ts'
import type { Logger } from '../lib/logger.ts'
import { sendRequest, type OutboundResult } from '../lib/outbound/request.ts'
import { MAX_POLICY_BYTES, mxMatches, parseStsPolicy, selectStsRecord, type StsMode } from './mta-sts-policy.ts'

export { mxMatches, patternMatches, type StsMode } from './mta-sts-policy.ts'

/** A recipient domain's MTA-STS policy as it applies: what it says, and under which TXT id. */
export interface MtaStsPolicy {
  /** The recipient domain, lower-case A-labels. */
  domain: string
  /** The `_mta-sts` TXT record's id the policy was fetched under. */
  id: string
  mode: StsMode
  /** MX host patterns (see mxMatches). */
  mx: readonly string[]
  /** Seconds, as the policy says. */
  maxAge: number
  fetchedAt: number
  /** When the cached policy stops applying (fetchedAt + max_age, at least a minute). */
  expiresAt: number
}

/**
 * Why no valid policy could be had: the DNS lookup of the TXT record failed (`dns`), the record is
 * malformed or there are several (`record`), the HTTPS fetch failed (`fetch`, a redirect or an
 * HTTP error included), the policy host's certificate is not valid for it (`certificate`), or
 * what was fetched is not a valid policy (`policy`: wrong Content-Type, too large, bad syntax).
 * The kinds follow TLS-RPT's (RFC 8460) sts-policy-fetch-error, sts-webpki-invalid and
 * sts-policy-invalid.
 */
export type MtaStsFailureKind = 'dns' | 'record' | 'fetch' | 'certificate' | 'policy'

export interface MtaStsFailure {
  kind: MtaStsFailureKind
  /** In words, naming the domain, URL or record: for the delivery's event and the log. */
  reason: string
}

/**
 * What a delivery to a domain must do about MTA-STS:
 *
 * - `policy`: apply it. `enforce`: deliver only to MX hosts that `mxMatches`, over TLS 1.2+ with a
 *   certificate valid for the MX host name, and defer otherwise; `testing`: deliver as usual and
 *   record what would have failed; `none`: nothing to do. When a refresh failed and the cached
 *   policy still applies (RFC 8461 §5.1), `refreshFailure` says why.
 * - `none`: the domain has no MTA-STS (no `_mta-sts` record, no cached policy): deliver as usual.
 * - `failed`: the domain seems to have MTA-STS but no valid policy could be had, and none is
 *   cached. RFC 8461 §5.1: deliver as though it had none, and record the failure.
 */
export type MtaStsResult =
  | { status: 'policy'; policy: MtaStsPolicy; refreshFailure?: MtaStsFailure }
  | { status: 'none' }
  | ({ status: 'failed' } & MtaStsFailure)

export interface MtaStsSettings {
  /** Let policy hosts be at loopback, private and link-local addresses (tests, a private network). */
  allowPrivate: boolean
  /** CAs to trust for the policy hosts' certificates (see trustedCas); undefined: the default trust. */
  ca?: string[]
  /** The HTTPS port of policy hosts: 443, another only for tests. */
  port: number
  /** One policy fetch in all: DNS, connecting, TLS and the whole body. Default one minute. */
  fetchTimeoutMs?: number
  /** The TXT record is read again at most this often (or its TTL, if shorter). Default 5 minutes. */
  recheckMs?: number
}

export interface MtaStsDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  resolver: Resolver
  clock: Clock
  logger: Logger
  settings: MtaStsSettings
}

/** The TXT record is not read again sooner than this, whatever its TTL. */
const MIN_RECHECK_MS = 60_000
/** A failed fetch of a policy id is not tried again sooner than this (RFC 8461 §3.3 suggests five minutes). */
const FETCH_RETRY_MS = 5 * 60_000
/** A policy applies for at least this long, whatever its max_age, so that max_age 0 is not a fetch per message. */
const MIN_LIFETIME_MS = 60_000
/** How often expired policies are deleted. */
const PRUNE_EVERY_MS = 60 * 60_000
/** Domains remembered in memory at most; the oldest are forgotten first (their policies stay in the database). */
const MAX_ENTRIES = 50_000

const PRIVATE_HINT = 'set MAILSTEAD_DELIVERY_ALLOW_PRIVATE_TARGETS=true to allow private policy hosts'

/** A domain as the cache knows it. */
interface Entry {
  /** The last valid policy while it applies; persisted. */
  policy?: MtaStsPolicy
  /** Why the last discovery found no valid new policy. */
  failure?: MtaStsFailure
  /** Discovery is not run again before this, unless asked to. */
  checkUntil: number
  /** A fetch of this id failed: it is not tried again before `until`. */
  failedFetch?: { id: string; until: number }
  /** The cached policy has been read from the database. */
  loaded: Promise<void>
  /** Discovery under way: concurrent callers wait for it. */
  running?: Promise<void>
}

type TxtOutcome = { kind: 'none'; ttlMs: number } | { kind: 'record'; id: string; ttlMs: number } | { kind: 'failed'; failure: MtaStsFailure; ttlMs: number }

/**
 * MTA-STS for outgoing mail (RFC 8461): reads a recipient domain's `_mta-sts` TXT record through
 * the configured resolver, fetches its policy from `https://mta-sts.<domain>/.well-known/mta-sts.txt`
 * through the outbound guard (checked, pinned address, no redirects, one deadline, bounded read),
 * and caches it for its max_age, in memory and in the database. The TXT record is read again at
 * most every few minutes; a changed id fetches the policy again, and so does a policy past half its
 * max_age (so an enforce policy in use never lapses). A failed refresh keeps a cached policy that
 * still applies, and so does a TXT record that is gone.
 */
export function createMtaSts(deps: MtaStsDeps) {
  const { clock, logger, settings } = deps
  const recheckMs = Math.max(MIN_RECHECK_MS, settings.recheckMs ?? 5 * 60_000)
  const fetchTimeoutMs = settings.fetchTimeoutMs ?? 60_000
  const resolve = hostAddresses(deps.resolver)
  const entries = new Map<string, Entry>()

  function entryOf(domain: string): Entry {
    let entry = entries.get(domain)
    if (entry) {
      // Most recently used last: the first key is the one to forget.
      entries.delete(domain)
    } else {
      const fresh: Entry = { checkUntil: 0, loaded: Promise.resolve() }
      fresh.loaded = loadPolicy(domain).then((policy) => {
        if (policy && !fresh.policy) fresh.policy = policy
      })
      entry = fresh
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!)
    }
    entries.set(domain, entry)
    return entry
  }

  async function loadPolicy(domain: string): Promise<MtaStsPolicy | undefined> {
    try {
      const row = await deps.db.selectFrom('mta_sts_policies').selectAll().where('domain', '=', domain).executeTakeFirst()
      if (!row || row.expires_at <= clock.now()) return undefined
      return {
        domain,
        id: row.policy_id,
        mode: row.mode,
        mx: JSON.parse(row.mx) as string[],
        maxAge: row.max_age,
        fetchedAt: row.fetched_at,
        expiresAt: row.expires_at,
      }
    } catch (error) {
      logger.error('MTASTS', `cannot read the cached policy of ${domain}`, { error: String(error) })
      return undefined
    }
  }

  async function savePolicy(policy: MtaStsPolicy): Promise<void> {
    const row = {
      domain: policy.domain,
      policy_id: policy.id,
      mode: policy.mode,
      mx: JSON.stringify(policy.mx),
      max_age: policy.maxAge,
      fetched_at: policy.fetchedAt,
      expires_at: policy.expiresAt,
    }
    try {
      await deps.write((trx) =>
        trx
          .insertInto('mta_sts_policies')
          .values(row)
          .onConflict((c) => c.column('domain').doUpdateSet(row))
          .execute(),
      )
    } catch (error) {
      // The policy still applies from memory; only a restart would forget it.
      logger.error('MTASTS', `cannot save the policy of ${policy.domain}`, { error: String(error) })
    }
  }

  /** What applies now, from what the cache holds. */
  function resultOf(entry: Entry): MtaStsResult {
    if (entry.policy && entry.policy.expiresAt <= clock.now()) entry.policy = undefined
    if (entry.policy) return { status: 'policy', policy: entry.policy, ...(entry.failure && { refreshFailure: entry.failure }) }
    if (entry.failure) return { status: 'failed', ...entry.failure }
    return { status: 'none' }
  }

  async function lookupRecord(domain: string): Promise<TxtOutcome> {
    const name = `_mta-sts.${domain}`
    const failed = (reason: string): TxtOutcome => ({ kind: 'failed', failure: { kind: 'dns', reason }, ttlMs: MIN_RECHECK_MS })
    let answer: DnsAnswer
    try {
      answer = await deps.resolver.query(name, 'TXT')
    } catch (error) {
      const reason = error instanceof DnsUnavailableError ? error.message : `the TXT lookup of ${name} failed: ${(error as Error)?.message ?? error}`
      return failed(reason)
    }
    if (answer.rcode === 'NXDOMAIN') return { kind: 'none', ttlMs: recheckMs }
    if (answer.rcode !== 'NOERROR' || answer.problem) return failed(`DNS answered ${failureOf(answer)} for TXT ${name}`)
    const records = recordsOf(answer, 'TXT')
    // The TTL of the answer (its CNAMEs included), within MIN_RECHECK_MS and recheckMs.
    const ttlMs = Math.min(recheckMs, Math.max(MIN_RECHECK_MS, Math.min(recheckMs, ...answer.answers.map((r) => r.ttl * 1000))))
    const selected = selectStsRecord(records.map((r) => r.value))
    if (!selected) return { kind: 'none', ttlMs: recheckMs }
    if (!selected.ok) return { kind: 'failed', failure: { kind: 'record', reason: `${name}: ${selected.reason}` }, ttlMs }
    return { kind: 'record', id: selected.value.id, ttlMs }
  }

  async function fetchPolicy(domain: string, id: string): Promise<{ policy: MtaStsPolicy } | { failure: MtaStsFailure }> {
    const host = `mta-sts.${domain}`
    const url = `https://${host}${settings.port === 443 ? '' : `:${settings.port}`}/.well-known/mta-sts.txt`
    const started = clock.now()
    const result = await sendRequest(
      // A longer body comes back marked truncated: a policy too large, refused below.
      { url, method: 'GET', headers: { accept: 'text/plain' }, timeoutMs: fetchTimeoutMs, maxResponseBytes: MAX_POLICY_BYTES },
      { allowPrivate: settings.allowPrivate, resolve, privateHint: PRIVATE_HINT, ...(settings.ca && { ca: settings.ca }) },
    )
    const problem = fetchProblem(result)
    if (problem) return { failure: { kind: problem.kind, reason: `${url}: ${problem.reason}` } }
    const parsed = parseStsPolicy(result.body)
    if (!parsed.ok) return { failure: { kind: 'policy', reason: `${url}: ${parsed.reason}` } }
    const { mode, mx, maxAge } = parsed.value
    return { policy: { domain, id, mode, mx, maxAge, fetchedAt: started, expiresAt: started + Math.max(maxAge * 1000, MIN_LIFETIME_MS) } }
  }

  /** Reads the TXT record and fetches the policy when it is new, changed or aging. */
  async function discover(domain: string, entry: Entry): Promise<void> {
    const now = clock.now()
    const txt = await lookupRecord(domain)
    entry.checkUntil = now + txt.ttlMs
    if (entry.policy && entry.policy.expiresAt <= now) entry.policy = undefined
    if (txt.kind === 'none') {
      // No record: a cached policy still applies until it expires (RFC 8461 §5.1).
      entry.failure = undefined
      return
    }
    if (txt.kind === 'failed') {
      if (!sameFailure(entry.failure, txt.failure)) logger.warn('MTASTS', `${domain}: ${txt.failure.reason}`, { domain, kind: txt.failure.kind })
      entry.failure = txt.failure
      return
    }
    const cached = entry.policy
    const aging = cached !== undefined && now - cached.fetchedAt >= (cached.expiresAt - cached.fetchedAt) / 2
    if (cached && cached.id === txt.id && !aging) {
      entry.failure = undefined
      return
    }
    if (entry.failedFetch?.id === txt.id && now < entry.failedFetch.until) return
    const fetched = await fetchPolicy(domain, txt.id)
    if ('failure' in fetched) {
      entry.failedFetch = { id: txt.id, until: clock.now() + FETCH_RETRY_MS }
      if (!sameFailure(entry.failure, fetched.failure)) {
        const kept = entry.policy ? `; the cached ${entry.policy.mode} policy (id ${entry.policy.id}) still applies` : ''
        logger.warn('MTASTS', `${domain}: ${fetched.failure.reason}${kept}`, { domain, kind: fetched.failure.kind, id: txt.id })
      }
      entry.failure = fetched.failure
      return
    }
    const { policy } = fetched
    if (!cached || cached.id !== policy.id || cached.mode !== policy.mode || cached.mx.join() !== policy.mx.join()) {
      logger.info('MTASTS', `${domain}: policy ${policy.id}, mode ${policy.mode}, mx ${policy.mx.join(' ') || '(none)'}, max_age ${policy.maxAge}`, {
        domain,
        id: policy.id,
        mode: policy.mode,
      })
    }
    entry.policy = policy
    entry.failure = undefined
    entry.failedFetch = undefined
    await savePolicy(policy)
  }

  let pruning: ReturnType<typeof setInterval> | undefined
  /** Recipient domains as policy domains: asked for at every attempt, worked out once. */
  const names = new Map<string, string | null | undefined>()

  function nameOf(domain: string): string | null | undefined {
    if (names.has(domain)) return names.get(domain)
    if (names.size >= MAX_ENTRIES) names.clear()
    const name = normalDomain(domain)
    names.set(domain, name)
    return name
  }

  /** Deletes the policies that no longer apply; answers how many. */
  async function prune(): Promise<number> {
    const now = clock.now()
    const result = await deps.write((trx) => trx.deleteFrom('mta_sts_policies').where('expires_at', '<=', now).executeTakeFirst())
    return Number(result.numDeletedRows)
  }

  return {
    /**
     * The MTA-STS policy that applies to mail for `domain` now (see MtaStsResult). Reads the TXT
     * record and fetches the policy only when the cache says it is time, or when `recheck` asks
     * to (RFC 8461 §5: before failing a message for good, look for a new policy). Never throws.
     */
    async policyFor(domain: string, options: { recheck?: boolean } = {}): Promise<MtaStsResult> {
      const name = nameOf(domain)
      if (name === null) return { status: 'none' }
      if (name === undefined) return { status: 'failed', kind: 'dns', reason: `${JSON.stringify(domain)} is not a domain name` }
      const entry = entryOf(name)
      await entry.loaded
      if (!entry.running && (options.recheck || clock.now() >= entry.checkUntil)) {
        entry.running = discover(name, entry)
          .catch((error) => {
            // Nothing above should throw; if it does, the delivery still gets an answer.
            entry.failure = { kind: 'fetch', reason: `MTA-STS discovery for ${name} failed: ${(error as Error)?.message ?? error}` }
            entry.checkUntil = clock.now() + MIN_RECHECK_MS
            logger.error('MTASTS', entry.failure.reason, { domain: name })
          })
          .finally(() => (entry.running = undefined))
      }
      // A discovery under way is waited for: until it ends, what the cache holds may be outdated.
      if (entry.running) await entry.running
      return resultOf(entry)
    },

    /** Forgets cached policies that have expired, from the database. */
    prune,
    /** Deletes expired policies hourly. */
    start() {
      pruning = setInterval(() => void prune().catch((error) => logger.error('MTASTS', 'cannot delete expired policies', { error: String(error) })), PRUNE_EVERY_MS)
      pruning.unref()
    },
    stop() {
      clearInterval(pruning)
    },
  }
}

export type MtaSts = ReturnType<typeof createMtaSts>

/**
 * The policy domain of a recipient domain: lower-case A-labels without a trailing dot. Null for an
 * address literal (`[192.0.2.1]`: no MTA-STS), undefined for what is not a domain name.
 */
function normalDomain(domain: string): string | null | undefined {
  const trimmed = domain.trim().replace(/\.$/, '')
  if (/^\[.*\]$/.test(trimmed)) return null
  const ascii = domainToASCII(trimmed).toLowerCase()
  const labels = ascii.split('.')
  const valid = ascii.length > 0 && ascii.length <= 253 && labels.every((label) => /^[a-z0-9_](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))
  return valid ? ascii : undefined
}

/** Why a fetch did not bring a policy to parse, or undefined when it did. */
function fetchProblem(result: OutboundResult): MtaStsFailure | undefined {
  if (result.status === null) {
    const error = result.error ?? 'no answer'
    return { kind: CERTIFICATE_ERROR.test(error) ? 'certificate' : 'fetch', reason: error }
  }
  if (result.status >= 300 && result.status < 400) return { kind: 'fetch', reason: result.error ?? `answered ${result.status}` }
  if (result.status !== 200) return { kind: 'fetch', reason: `the server answered HTTP ${result.status}; a policy needs 200` }
  if (result.error) return { kind: 'fetch', reason: result.error }
  const length = Number(result.headers?.['content-length'])
  if (result.truncated || length > MAX_POLICY_BYTES) return { kind: 'policy', reason: `the policy is larger than ${MAX_POLICY_BYTES} bytes` }
  const type = result.headers?.['content-type']
  const media = type?.split(';')[0]!.trim().toLowerCase()
  if (media !== 'text/plain') {
    return { kind: 'policy', reason: type ? `the Content-Type is ${JSON.stringify(type.slice(0, 100))}; a policy must be text/plain` : 'no Content-Type; a policy must be text/plain' }
  }
  return undefined
}

/** TLS verification failures, as Node and Bun name them. */
const CERTIFICATE_ERROR = /CERT|SELF[_ -]SIGNED|UNABLE_TO_(VERIFY|GET_ISSUER)|ALTNAME|certificate/i

const sameFailure = (a: MtaStsFailure | undefined, b: MtaStsFailure) => a?.kind === b.kind && a.reason === b.reason
