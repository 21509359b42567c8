// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../../test/helpers/clock.ts'
import { insertDomain as seedDomain, insertProject as seedProject } from '../../../test/helpers/seed-rows.ts'
import { openTestDatabase } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import type { Db } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { ConfigError, loadConfig } from '../../config/load.ts'
import { createLogger } from '../../lib/logger.ts'
import { addEmailEvent } from '../emails/email-events.ts'
import { applyBounce, applyComplaint } from '../emails/feedback.ts'
import { findDelivery } from '../queue/index.ts'
import { HOUR_MS, NO_COUNTS, pruneCounters, hourOf, rangeCounts, windowCounts, type Counts } from '../analytics/counters.ts'
import { DEFAULT_GUARDRAILS, guardrailSettingsOf, guardrailVerdict, judge, type GuardrailSettings } from './guard.ts'
import { createGuardrailMonitor } from './monitor.ts'

const counts = (c: Partial<Counts>): Counts => ({ ...NO_COUNTS, ...c })
const SECRET = { MAILSTEAD_SECRET: 'x'.repeat(32) }

describe('the settings', () => {
  test('default to the bulk-sender rules: 0.3% complaints, 5% hard bounces, after 1,000 sent, over 24 hours', () => {
    expect(guardrailSettingsOf(loadConfig({ env: SECRET }).config)).toEqual(DEFAULT_GUARDRAILS)
    expect(DEFAULT_GUARDRAILS).toEqual({ windowHours: 24, complaintPercent: 0.3, hardBouncePercent: 5, minDeliveries: 1000 })
  })

  test('are read from the environment, decimals included', () => {
    const env = { ...SECRET, MAILSTEAD_GUARDRAIL_WINDOW_HOURS: '48', MAILSTEAD_GUARDRAIL_COMPLAINT_PERCENT: '0.1', MAILSTEAD_GUARDRAIL_HARD_BOUNCE_PERCENT: '2.5', MAILSTEAD_GUARDRAIL_MIN_DELIVERIES: '500' }
    expect(guardrailSettingsOf(loadConfig({ env }).config)).toEqual({ windowHours: 48, complaintPercent: 0.1, hardBouncePercent: 2.5, minDeliveries: 500 })
  })

  test.each([
    ['MAILSTEAD_GUARDRAIL_COMPLAINT_PERCENT', '-1'],
    ['MAILSTEAD_GUARDRAIL_COMPLAINT_PERCENT', '0.3%'],
    ['MAILSTEAD_GUARDRAIL_HARD_BOUNCE_PERCENT', '101'],
    ['MAILSTEAD_GUARDRAIL_WINDOW_HOURS', '0'],
    ['MAILSTEAD_GUARDRAIL_WINDOW_HOURS', '1.5'],
    ['MAILSTEAD_GUARDRAIL_MIN_DELIVERIES', '0'],
  ])('%s=%s is refused', (name, value) => {
    expect(() => loadConfig({ env: { ...SECRET, [name]: value } })).toThrow(ConfigError)
  })
})

describe('judge: the limits of the bulk-sender rules, after the minimum', () => {
  test.each([
    ['no mail at all', counts({}), DEFAULT_GUARDRAILS, false, []],
    ['complaints exactly at 0.3% are not over it', counts({ delivered: 1000, complained: 3 }), DEFAULT_GUARDRAILS, true, []],
    ['complaints over 0.3%', counts({ delivered: 1000, complained: 4 }), DEFAULT_GUARDRAILS, true, ['complaint_rate']],
    ['complaints at 5%, under the minimum of 1,000 sent', counts({ delivered: 999, complained: 50 }), DEFAULT_GUARDRAILS, false, []],
    ['hard bounces exactly at 5% are not over it', counts({ delivered: 950, bounced: 50, hardBounced: 50 }), DEFAULT_GUARDRAILS, true, []],
    ['hard bounces over 5%', counts({ delivered: 949, bounced: 51, hardBounced: 51 }), DEFAULT_GUARDRAILS, true, ['hard_bounce_rate']],
    ['soft bounces count as sent, not as hard bounces', counts({ delivered: 900, bounced: 100, hardBounced: 40 }), DEFAULT_GUARDRAILS, true, []],
    ['hard bounces reported afterwards count against what was sent', counts({ delivered: 1000, hardBounced: 60 }), DEFAULT_GUARDRAILS, true, ['hard_bounce_rate']],
    ['both over: the complaint rate first', counts({ delivered: 900, bounced: 100, hardBounced: 100, complained: 9 }), DEFAULT_GUARDRAILS, true, ['complaint_rate', 'hard_bounce_rate']],
    ['nothing delivered: no complaint rate', counts({ bounced: 1000, hardBounced: 1000 }), DEFAULT_GUARDRAILS, true, ['hard_bounce_rate']],
    ['lower limits and minimum, configured', counts({ delivered: 10, complained: 1 }), { ...DEFAULT_GUARDRAILS, complaintPercent: 5, minDeliveries: 10 }, true, ['complaint_rate']],
    ['100% never pauses', counts({ delivered: 0, bounced: 2000, hardBounced: 2000 }), { ...DEFAULT_GUARDRAILS, hardBouncePercent: 100 }, true, []],
  ] as Array<[string, Counts, GuardrailSettings, boolean, string[]]>)('%s', (_, given, settings, judged, breaches) => {
    const judgement = judge(given, settings)
    expect(judgement.judged).toBe(judged)
    expect(judgement.breaches).toEqual(breaches as never)
  })

  test('rates are per cent, to three decimals: complaints of delivered, hard bounces of sent', () => {
    expect(judge(counts({ delivered: 1200, bounced: 300, hardBounced: 100, complained: 6 }), DEFAULT_GUARDRAILS).rates).toEqual({
      windowHours: 24,
      delivered: 1200,
      bounced: 300,
      hardBounced: 100,
      complained: 6,
      sent: 1500,
      complaintRate: 0.5,
      hardBounceRate: 6.667,
    })
  })
})

const START = Date.parse('2026-11-01T12:00:00Z')
let database: Database
let db: Db
let clock: ManualClock
const write = <T>(work: (trx: Db) => Promise<T>) => writeTransaction(db, work)

const insertProject = (name: string) => seedProject(db, name, START)
const insertDomain = (projectId: number, name: string) => seedDomain(db, projectId, name, START)

let emails = 0
/** An email from the domain (null: none) with one delivery to `recipient`, simulated when `sandbox`; answers the delivery. */
async function insertDelivery(projectId: number, domainId: number | null, recipient = 'r@example.net', sandbox: 0 | 1 = 0) {
  const id = `e${++emails}`
  await db
    .insertInto('emails')
    .values({ id, project_id: projectId, domain_id: domainId, contact_id: null, from_address: 'a@x.com', recipients: '{}', subject: 's', message_id: `<${id}@x>`, dkim_header: null, status: 'QUEUED', scheduled_at: null, created_at: START, updated_at: START })
    .execute()
  const row = await db
    .insertInto('deliveries')
    .values({ email_id: id, project_id: projectId, recipient, recipient_domain: 'example.net', state: 'sending', sandbox, next_attempt_at: START, expires_at: START + 72 * HOUR_MS, created_at: START, updated_at: START })
    .returningAll()
    .executeTakeFirstOrThrow()
  return row
}

let project: number
let domain: number

beforeEach(async () => {
  database = await openTestDatabase()
  db = database.db
  clock = new ManualClock(START)
  project = await insertProject('p')
  domain = await insertDomain(project, 'sender.example.com')
})

afterEach(() => database.close())

const STATUS = { delivered: 'DELIVERED', bounced: 'BOUNCED', deferred: 'DELIVERY_DELAYED', failed: 'FAILED', suppressed: 'SUPPRESSED' } as const

type Outcome = { kind: keyof typeof STATUS; hard?: boolean }

/** An attempt's outcome as the delivery queue records it: the email's event, which the counters count. */
const countOutcome = (trx: Db, delivery: { email_id: string; recipient: string }, outcome: Outcome) =>
  addEmailEvent(trx, delivery.email_id, STATUS[outcome.kind], { recipient: delivery.recipient, attempt: 1, ...(outcome.kind === 'bounced' && { hard: outcome.hard }) }, clock.now())

/** Settles `n` deliveries of the project's domain with `outcome` now; a sandbox's, simulated, without a domain. */
async function settleMany(n: number, outcome: Outcome, projectId = project, domainId: number | null = domain, sandbox: 0 | 1 = 0) {
  for (let i = 0; i < n; i++) {
    const delivery = await insertDelivery(projectId, domainId, 'r@example.net', sandbox)
    await write((trx) => countOutcome(trx, delivery, outcome))
  }
}

/** A complaint about a delivery of the project's domain, as the report listener records it. */
async function complaint() {
  const delivery = await insertDelivery(project, domain)
  await write((trx) => applyComplaint(trx, delivery, { source: 'arf', feedbackType: 'abuse' }, clock.now()))
}

const window = (hours = 24, projectId = project, domainId = domain) => windowCounts(db, projectId, domainId, clock.now(), hours)

describe('counting outcomes', () => {
  test('delivered and bounced count as sent, hard bounces apart; deferrals, failures and suppressions count nothing', async () => {
    await settleMany(3, { kind: 'delivered' })
    await settleMany(2, { kind: 'bounced', hard: true })
    await settleMany(1, { kind: 'bounced', hard: false })
    for (const kind of ['deferred', 'failed', 'suppressed'] as const) await settleMany(1, { kind })
    expect(await window()).toEqual({ delivered: 3, bounced: 3, hardBounced: 2, complained: 0 })
  })

  test('one row per project, domain and hour', async () => {
    await settleMany(5, { kind: 'delivered' })
    clock.advance(HOUR_MS)
    await settleMany(5, { kind: 'delivered' })
    const rows = await db.selectFrom('sending_counters').selectAll().orderBy('hour').execute()
    expect(rows.map((r) => [r.hour - hourOf(START), r.delivered])).toEqual([
      [0, 5],
      [1, 5],
    ])
  })

  test('projects and domains are counted apart; mail without a sending domain is not counted', async () => {
    const other = await insertDomain(project, 'other.example.com')
    const otherProject = await insertProject('q')
    const theirs = await insertDomain(otherProject, 'theirs.example.com')
    await settleMany(2, { kind: 'delivered' })
    await settleMany(3, { kind: 'delivered' }, project, other)
    await settleMany(4, { kind: 'delivered' }, otherProject, theirs)
    await settleMany(5, { kind: 'delivered' }, project, null)
    expect((await window()).delivered).toBe(2)
    expect((await window(24, project, other)).delivered).toBe(3)
    expect((await window(24, otherProject, theirs)).delivered).toBe(4)
    expect(await db.selectFrom('sending_counters').select((eb) => eb.fn.sum<number>('delivered').as('n')).executeTakeFirstOrThrow()).toEqual({ n: 9 })
  })

  test.each([
    // Hours after the first outcomes (10 delivered, 2 complaints at 12:00; 5 more delivered at 00:00), and what a 24-hour window holds then.
    [12, { delivered: 15, complained: 2 }],
    [23, { delivered: 15, complained: 2 }],
    [24, { delivered: 5, complained: 0 }],
    [35, { delivered: 5, complained: 0 }],
    [36, { delivered: 0, complained: 0 }],
  ])('rates over the rolling window: %i hours on, older hours have dropped out', async (hours, expected) => {
    await settleMany(10, { kind: 'delivered' })
    await complaint()
    await complaint()
    clock.advance(12 * HOUR_MS)
    await settleMany(5, { kind: 'delivered' })
    clock.advance((hours - 12) * HOUR_MS)
    const got = await window()
    expect({ delivered: got.delivered, complained: got.complained }).toEqual(expected)
  })

  test('the window is configurable', async () => {
    await settleMany(4, { kind: 'delivered' })
    clock.advance(2 * HOUR_MS)
    await settleMany(1, { kind: 'delivered' })
    expect((await window(1)).delivered).toBe(1)
    expect((await window(2)).delivered).toBe(1)
    expect((await window(3)).delivered).toBe(5)
  })

  test("old rows are pruned by hour, a sandbox's too", async () => {
    await settleMany(1, { kind: 'delivered' })
    await settleMany(1, { kind: 'delivered' }, project, null, 1)
    clock.advance(HOUR_MS)
    await settleMany(1, { kind: 'delivered' })
    expect(await write((trx) => pruneCounters(trx, hourOf(clock.now())))).toBe(2)
    expect((await window()).delivered).toBe(1)
    expect(await db.selectFrom('sandbox_counters').selectAll().execute()).toEqual([])
  })

  test("a sandbox's mail is counted for its project's analytics, never for the guardrails, and a removed domain's mail for neither", async () => {
    const monitor = createGuardrailMonitor({ db, write, clock, logger: createLogger('error', () => {}), settings: { ...DEFAULT_GUARDRAILS, minDeliveries: 1 } })
    const sandbox = await insertProject('sandbox')
    await settleMany(1, { kind: 'delivered' }, sandbox, null, 1)
    await settleMany(3, { kind: 'bounced', hard: true }, sandbox, null, 1)
    await settleMany(2, { kind: 'delivered' }, project, null)
    const hour = hourOf(clock.now())
    const [row] = await rangeCounts(db, { projectId: sandbox, first: hour, last: hour, bucketHours: 1 })
    expect(row).toMatchObject({ bucket: hour, delivered: 1, bounced: 3, hardBounced: 3 })
    expect(await rangeCounts(db, { projectId: project, first: hour, last: hour, bucketHours: 1 })).toEqual([])
    // 75% hard bounces from the first message, and nothing is over.
    expect(await monitor.tick()).toEqual([])
  })

  test('a verdict over the window says what is over, in words', async () => {
    const settings = { ...DEFAULT_GUARDRAILS, minDeliveries: 20 }
    await settleMany(20, { kind: 'delivered' })
    const under = await guardrailVerdict(db, project, { id: domain, name: 'sender.example.com' }, settings, clock.now())
    expect(under).toMatchObject({ judged: true, breaches: [], message: null })
    await complaint()
    const over = await guardrailVerdict(db, project, { id: domain, name: 'sender.example.com' }, settings, clock.now())
    expect(over.message).toBe('complaints were 5% of the mail sender.example.com delivered in the last 24 hours (1 of 20), over the 0.3% limit')
  })
})

describe('reports counted afterwards (feedback)', () => {
  const facts = { source: 'arf', feedbackType: 'abuse' }

  test('a complaint counts once per recipient and email, however many reports say it', async () => {
    const delivery = await insertDelivery(project, domain, 'grumpy@example.net')
    await write((trx) => countOutcome(trx, delivery, { kind: 'delivered' }))
    for (let i = 0; i < 3; i++) await write(async (trx) => applyComplaint(trx, (await findDelivery(trx, delivery.id))!, facts, clock.now()))
    expect(await window()).toEqual({ delivered: 1, bounced: 0, hardBounced: 0, complained: 1 })
  })

  /** Bounces that reports counted: recipients whose attempts had not bounced, each once. */
  const reportedBounced = async () => (await rangeCounts(db, { projectId: project, first: hourOf(START), last: hourOf(clock.now()), bucketHours: 24 }))[0]?.reportedBounced

  /** An attempt that bounced, recorded as the delivery queue records it: its state, and its event, which is counted. */
  async function bouncedAtAttempt(recipient: string, hard: boolean) {
    const delivery = await insertDelivery(project, domain, recipient)
    await write(async (trx) => {
      await trx.updateTable('deliveries').set({ state: 'bounced' }).where('id', '=', delivery.id).execute()
      await countOutcome(trx, delivery, { kind: 'bounced', hard })
    })
    return delivery
  }

  test('a hard bounce reported after delivery counts; one whose attempt already bounced hard does not count twice; a soft one never', async () => {
    const later = await insertDelivery(project, domain, 'later@example.net')
    await db.updateTable('deliveries').set({ state: 'delivered' }).where('id', '=', later.id).execute()
    await write(async (trx) => applyBounce(trx, (await findDelivery(trx, later.id))!, { source: 'dsn' }, true, clock.now()))
    const bounced = await bouncedAtAttempt('gone@example.net', true)
    await write(async (trx) => applyBounce(trx, (await findDelivery(trx, bounced.id))!, { source: 'dsn' }, true, clock.now()))
    const soft = await insertDelivery(project, domain, 'full@example.net')
    await write(async (trx) => applyBounce(trx, (await findDelivery(trx, soft.id))!, { source: 'dsn' }, false, clock.now()))
    expect(await window()).toEqual({ delivered: 0, bounced: 1, hardBounced: 2, complained: 0 })
    // Each recipient bounced once: two by a report, one at its attempt.
    expect(await reportedBounced()).toBe(2)
  })

  test('a hard bounce reported after a soft one, at an attempt or in a report, counts once', async () => {
    const atAttempt = await bouncedAtAttempt('full@example.net', false)
    const reported = await insertDelivery(project, domain, 'quota@example.net')
    await write(async (trx) => applyBounce(trx, (await findDelivery(trx, reported.id))!, { source: 'plain' }, false, clock.now()))
    for (const delivery of [atAttempt, reported, atAttempt]) {
      await write(async (trx) => applyBounce(trx, (await findDelivery(trx, delivery.id))!, { source: 'dsn' }, true, clock.now()))
    }
    expect(await window()).toEqual({ delivered: 0, bounced: 1, hardBounced: 2, complained: 0 })
    expect(await reportedBounced()).toBe(1)
  })
})

describe('the monitor: a warning once per crossing', () => {
  test('warns when a domain goes over, once; says when it is back under; then warns again on the next crossing', async () => {
    const lines: any[] = []
    const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)))
    const monitor = createGuardrailMonitor({ db, write, clock, logger, settings: { ...DEFAULT_GUARDRAILS, minDeliveries: 20 } })
    await settleMany(19, { kind: 'delivered' })
    await settleMany(1, { kind: 'bounced', hard: true })
    expect(await monitor.tick()).toEqual([])
    await settleMany(2, { kind: 'bounced', hard: true })
    expect(await monitor.tick()).toEqual([{ projectId: project, domainId: domain, domain: 'sender.example.com', breach: 'hard_bounce_rate', state: 'over' }])
    // More of the same mail: still over, said already.
    await settleMany(2, { kind: 'bounced', hard: true })
    expect(await monitor.tick()).toEqual([])
    expect(await monitor.tick()).toEqual([])
    const warnings = lines.filter((l) => l.tag === 'GUARDRAIL' && l.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ projectId: project, domain: 'sender.example.com', breach: 'hard_bounce_rate', sent: 22, hardBounced: 3 })
    expect(warnings[0].msg).toContain('hard bounces were 13.636% of the mail sender.example.com sent in the last 24 hours (3 of 22), over the 5% limit')
    expect(warnings[0].msg).toContain('transactional mail goes on')
    // The hours drop out of the window: back under.
    clock.advance(24 * HOUR_MS)
    expect(await monitor.tick()).toEqual([{ projectId: project, domainId: domain, domain: 'sender.example.com', breach: 'hard_bounce_rate', state: 'under' }])
    expect(lines.filter((l) => l.tag === 'GUARDRAIL' && l.level === 'info').map((l) => l.msg)).toEqual([`project ${project}: hard bounces from sender.example.com are back under the limit`])
    await settleMany(20, { kind: 'bounced', hard: true })
    expect((await monitor.tick()).map((c) => c.state)).toEqual(['over'])
    expect(lines.filter((l) => l.tag === 'GUARDRAIL' && l.level === 'warn')).toHaveLength(2)
  })
})
