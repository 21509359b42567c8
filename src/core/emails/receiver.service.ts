import { simpleParser } from 'mailparser'
import type { Db } from '../../db/schema.ts'
import { findDomainOf, heldDkimKeys } from '../domains/domains.service.ts'
import { returnPathHost } from '../domains/records.ts'
import { SANDBOX_HOST } from '../projects/sandbox-host.ts'
import { sandboxDkimRecord } from '../projects/sandbox.ts'
import { deliveriesOf } from '../queue/index.ts'
import { clickOfToken, type LinkSettings } from '../tracking/links.ts'
import { textPartCheck, trackingCheck } from './content-checks.ts'
import { dkimCoverageCheck } from './dkim-coverage.ts'
import { dkimChecks, type HeldKey } from './dkim-verification.ts'
import { getRawMessage } from './emails.service.ts'
import { dkimHeaderOf, findEmail } from './emails.repository.ts'
import { readHead } from './raw-message.ts'
import { check, dateCheck, returnPathCheck, feedbackIdCheck, isBulk, listUnsubscribeCheck, messageIdCheck, type Check } from './receiver-checks.ts'

/** What the checks need besides the message: where tracking goes, and the time signatures are judged at. */
export interface ReceiverContext {
  links: LinkSettings
  now: number
  /** The envelope sender of one delivery from a return-path host (it is signed with the server's secret). */
  envelopeOf: (deliveryId: number, returnPathHost: string) => string
}

const NOT_SIGNED_YET = 'Not signed yet: the signature is made at the first delivery attempt'

/**
 * The checks a receiving server would run on an email as its recipients get it (signed): DKIM
 * verified by mailauth against the keys Mailstead holds, then the headers and parts that Gmail's
 * and Yahoo's sender rules look at. 404 for an email not in the project, 410 once retention
 * deleted its message.
 */
export async function receiverChecks(db: Db, projectId: number, emailId: string, context: ReceiverContext): Promise<{ emailId: string; signed: boolean; checks: Check[] }> {
  const raw = await getRawMessage(db, projectId, emailId)
  const signed = (await dkimHeaderOf(db, emailId)) !== null
  const { fields } = readHead(raw)
  const parsed = await simpleParser(Buffer.from(raw), { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true })
  const bodies = { html: typeof parsed.html === 'string' ? parsed.html : null, text: parsed.text ?? null, trackingBase: context.links.baseUrl, destinationOf: destinationOf(context.links) }
  const dkim = signed
    ? [...(await dkimChecks(raw, await heldKeys(db, projectId, parsed.from?.value[0]?.address), context.now)), dkimCoverageCheck(fields)]
    : [check('dkim', 'DKIM signature', 'info', NOT_SIGNED_YET)]
  const checks = [
    ...dkim,
    messageIdCheck(fields),
    dateCheck(fields),
    listUnsubscribeCheck(fields),
    feedbackIdCheck(fields),
    textPartCheck(bodies),
    trackingCheck(bodies, isBulk(fields)),
    returnPathCheck(...(await envelope(db, projectId, emailId, context)), emailId),
  ]
  return { emailId, signed, checks }
}

/**
 * The DKIM keys Mailstead holds for the project: its domains', and its sandbox key as it signs
 * for the From's domain (marked `sandbox`: no DNS publishes it).
 */
async function heldKeys(db: Db, projectId: number, from: string | undefined): Promise<HeldKey[]> {
  const domain = from?.slice(from.lastIndexOf('@') + 1)
  const sandbox = domain ? await sandboxDkimRecord(db, projectId, domain) : undefined
  const held: HeldKey[] = await heldDkimKeys(db, projectId)
  return sandbox ? [...held, { ...sandbox, published: false, sandbox: true }] : held
}

/** Where a click-tracking link of this server leads. */
const destinationOf = (links: LinkSettings) => (url: string) => clickOfToken(links.secret, url.slice(url.lastIndexOf('/') + 1))?.url

/** The first recipient's envelope sender, as its delivery gives it to the receiver (none before a delivery, or once the domain is removed). */
async function envelope(db: Db, projectId: number, emailId: string, context: ReceiverContext): Promise<[string | undefined, string | undefined]> {
  const [email, [delivery]] = await Promise.all([findEmail(db, projectId, emailId), deliveriesOf(db, emailId)])
  const domain = email?.domain_id ? await findDomainOf(db, projectId, email.domain_id) : undefined
  const host = delivery?.sandbox === 1 ? SANDBOX_HOST : domain && returnPathHost(domain)
  if (!delivery || !host) return [undefined, delivery?.recipient]
  return [context.envelopeOf(delivery.id, host), delivery.recipient]
}
