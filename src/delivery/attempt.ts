import type { ComposedEmail } from '../core/campaigns/campaign-message.ts'
import { emailForAttempt, keepContent } from '../core/emails/index.ts'
import { PROJECT_DISABLED_HOLD, type AttemptRecord, type Delivery, type Settlement as QueueSettlement } from '../core/queue/index.ts'
import { suppressionReason } from '../core/suppressions/suppressions.service.ts'
import type { Db } from '../db/schema.ts'
import { checkAddress } from '../lib/address.ts'
import type { Clock } from '../lib/clock.ts'
import { classifyReply, parseReply, type Outcome, type SmtpReply } from './classify.ts'
import { nextAttemptAt } from './schedule.ts'
import type { SendingDomain } from './sending-domain.ts'
import type { MailWork } from './mail-work.ts'
import type { TransferFn } from './transfer.ts'
import { returnPath } from './verp.ts'
import { SANDBOX_HOST } from '../core/projects/sandbox-host.ts'
import { simulate } from './simulator.ts'
import { sandboxComplaint, type SandboxArrival } from './sandbox-report.ts'
import { TtlCache } from '../lib/ttl-cache.ts'

export type { Delivery }

/** What an attempt recorded: what its outcome writes (AttemptRecord), and the reply shaping reads. */
export interface AttemptData extends AttemptRecord {
  /** The last SMTP reply a server gave, read: what shaping judges the site by. Not recorded. */
  reply?: SmtpReply
}

/** An attempt's outcome, as the queue settles it (src/core/queue/settle.ts). */
export type Settlement = QueueSettlement<AttemptData>

export interface DeliverySettings {
  /** Signs return-path tokens. */
  secret: string
  retrySchedule: readonly number[]
  attemptTimeoutMs: number
}

export interface AttemptDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  transfer: TransferFn
  work: MailWork
  domainOf: (domainId: number) => Promise<SendingDomain | undefined>
  /** What a sandbox project's email from this From is signed with (its sandbox key). */
  sandboxDomainOf: (projectId: number, from: string) => Promise<SendingDomain | undefined>
  /** The MX listener's report handler: where the sandbox's complaints are sent. */
  complain: (raw: Buffer, arrival: SandboxArrival) => Promise<unknown>
  /** The message of an email that is built at its first attempt (a campaign's). */
  compose: (emailId: string) => Promise<ComposedEmail | undefined>
  settings: DeliverySettings
}

/** A signature made is remembered this long, for the email's other recipients and its first outcome to store. */
const SIGNATURES_KEPT_MS = 10 * 60_000

/**
 * One attempt to deliver one message to one recipient: checks it may still go (not expired, not
 * suppressed, its project not disabled), signs it (once
 * per email; later attempts and recipients send the same bytes), finds the recipient's MX hosts
 * and tries them in order until one answers.
 */
export function createAttempt(deps: AttemptDeps) {
  const signing = new Map<string, Promise<string>>()
  /** Signatures made but perhaps not stored yet: settling an attempt stores its email's. */
  const signed = new TtlCache<string>(deps.clock, SIGNATURES_KEPT_MS)
  const building = new Map<string, Promise<Uint8Array | undefined>>()

  /** The email's message: as stored, or built now and kept, once, for every later attempt. */
  async function messageOf(emailId: string, stored: Uint8Array | null): Promise<Uint8Array | undefined> {
    if (stored) return stored
    let pending = building.get(emailId)
    if (!pending) {
      pending = (async () => {
        const composed = await deps.compose(emailId)
        if (!composed) return undefined
        const mime = await deps.work.build(composed.parts)
        return deps.write((trx) => keepContent(trx, { email_id: emailId, html: composed.html, text: composed.text, mime }))
      })().finally(() => building.delete(emailId))
      building.set(emailId, pending)
    }
    return pending
  }

  /**
   * The email's DKIM-Signature header(s): as stored, or made now (once, however many of its
   * recipients are attempted meanwhile) and remembered until the first outcome stores it, so
   * every recipient and every retry sends the same bytes.
   */
  async function signatureOf(emailId: string, mime: Uint8Array, stored: string | null, domain: SendingDomain): Promise<{ header: string; fresh: boolean }> {
    if (stored) return { header: stored, fresh: false }
    const known = signed.get(emailId)
    if (known) return { header: known, fresh: true }
    let pending = signing.get(emailId)
    if (!pending) {
      pending = deps.work
        .sign(mime, domain.keys, deps.clock.now())
        .then((header) => (signed.set(emailId, header), header))
        .finally(() => signing.delete(emailId))
      signing.set(emailId, pending)
    }
    return { header: await pending, fresh: true }
  }

  /** What the email is signed with: its sending domain's keys, or its sandbox project's key. */
  function signerOf(delivery: Delivery, email: { domain_id: number | null; from_address: string }): Promise<SendingDomain | undefined> {
    if (delivery.sandbox === 1) return deps.sandboxDomainOf(delivery.project_id, email.from_address)
    return email.domain_id ? deps.domainOf(email.domain_id) : Promise.resolve(undefined)
  }

  return async function attempt(delivery: Delivery, limits: { messagesPerConnection?: number } = {}): Promise<Settlement> {
    const startedAt = deps.clock.now()
    const data: AttemptData = { startedAt }
    if (startedAt >= delivery.expires_at) return { kind: 'bounced', data: { ...data, response: 'Retried for too long' }, category: 'expired', hard: false }
    const key = checkAddress(delivery.recipient)
    const suppressedFor = key.ok ? await suppressionReason(deps.db, delivery.project_id, key.value.key) : undefined
    if (suppressedFor) return { kind: 'suppressed', data, reason: suppressedFor }
    const email = await emailForAttempt(deps.db, delivery.email_id)
    // Read at each attempt, so that mail already claimed is held as soon as its project is disabled.
    if (email?.disabled === 1) return { kind: 'held', data, reason: PROJECT_DISABLED_HOLD }
    // The flag it was queued with: a sandbox email is never sent for real, nor a real one simulated.
    const sandbox = delivery.sandbox === 1
    const domain = email && (await signerOf(delivery, email))
    if (!email || !domain) return { kind: 'failed', data, reason: 'The sending domain was removed' }
    const mime = await messageOf(delivery.email_id, email.mime)
    if (!mime) return { kind: 'failed', data, reason: 'The message could not be built: its campaign or contact was deleted' }
    const { header, fresh } = await signatureOf(delivery.email_id, mime, email.dkim_header, domain)
    if (fresh) data.dkimHeader = header
    const message = Buffer.concat([Buffer.from(header), mime])
    const from = returnPath(deps.settings.secret, delivery.id, domain.returnPathHost)
    if (sandbox) return simulated(delivery, from, message, data)
    return transfer(delivery, from, message, data, limits)
  }

  /**
   * The sandbox's delivery step: the signed message (its signature stored with the outcome, like
   * a real one's) is handed to the simulator instead of an MX host, and its reply is classified
   * by the same rule table. A complaint is a feedback report to the return path, handed to the MX
   * listener's report handler once the delivery is recorded.
   */
  function simulated(delivery: Delivery, from: string, message: Buffer, data: AttemptData): Settlement {
    const answer = simulate(delivery.recipient, delivery.attempts)
    if (answer.kind === 'suppressed') return { kind: 'suppressed', data: { ...data, response: 'The sandbox refuses suppressed... addresses as suppressed' }, reason: 'manual' }
    const reply = parseReply(answer.code, answer.response)
    const replied = { ...data, mx: SANDBOX_HOST, smtpCode: answer.code, enhancedCode: reply.enhanced, response: answer.response, reply }
    const settlement = settlementOf(classifyReply(reply), delivery, replied)
    if (settlement.kind !== 'delivered' || !answer.complaint) return settlement
    const report = sandboxComplaint({ returnPath: from, recipient: delivery.recipient, message, at: deps.clock.now() })
    return { ...settlement, afterwards: () => deps.complain(report.raw, report.arrival) }
  }

  async function transfer(delivery: Delivery, from: string, message: Uint8Array, data: AttemptData, limits: { messagesPerConnection?: number }): Promise<Settlement> {
    // Real seconds spent on the network, whatever clock schedules the queue.
    const deadline = Date.now() + deps.settings.attemptTimeoutMs
    const result = await deps.transfer(delivery.recipient_domain, from, delivery.recipient, message, deadline, limits)
    if (result.kind === 'no-route') return { kind: 'bounced', data: { ...data, response: result.reason }, category: result.category, hard: true }
    if (result.kind === 'unreached') {
      const reply = result.reply ? parseReply(Number(result.reply.slice(0, 3)) || 0, result.reply) : undefined
      return deferral(delivery, { ...data, response: String(result.trace), ...(reply && { reply }) }, result.category)
    }
    const { reply, host, address, trace } = result
    const parsed = parseReply(reply.code, reply.response)
    const outcome = classifyReply(parsed)
    // A deferral says what happened on the way to this reply too.
    if (outcome.kind === 'deferred') trace.address(host, address, result.port, reply.response.replace(/\r?\n/g, ' '))
    const response = outcome.kind === 'deferred' ? String(trace) : reply.response
    const replied = {
      ...data,
      mx: host,
      ip: address,
      smtpCode: reply.code,
      enhancedCode: parsed.enhanced,
      response,
      reply: parsed,
      ...(reply.tls && { tls: reply.tls }),
      ...(result.mtaSts && { mtaSts: result.mtaSts }),
    }
    return settlementOf(outcome, delivery, replied)
  }

  function settlementOf(outcome: Outcome, delivery: Delivery, data: AttemptData): Settlement {
    if (outcome.kind === 'delivered') return { kind: 'delivered', data }
    if (outcome.kind === 'bounced') return { kind: 'bounced', data, category: outcome.category, hard: outcome.hard }
    return deferral(delivery, data, outcome.category)
  }

  /** Try again by the schedule; a message that would outlive its expiry bounces instead. */
  function deferral(delivery: Delivery, data: AttemptData, category: string): Settlement {
    const next = nextAttemptAt(delivery.attempts, deps.clock.now(), deps.settings.retrySchedule)
    if (next > delivery.expires_at) return { kind: 'bounced', data, category: 'expired', hard: false }
    return { kind: 'deferred', data, nextAttemptAt: next, category }
  }
}
