import { returnPath } from '../../src/delivery/verp.ts'
import { googleReport, googleStyle, record } from '../helpers/dmarc.ts'
import { arf, deliverReport, dsn } from '../helpers/reports.ts'
import { SECRET, type ConsoleWorld } from './harness.ts'

/*
 * Reports fed to a browser test's server through its real MX listener over SMTP, as receivers send
 * them: a DMARC aggregate report at the domain's rua address, and a bounce (DSN) and a complaint
 * (ARF) at the return paths of deliveries the server made. The server must listen for MX
 * (`'mx-port': '0'`) and have sent from sender.example.com.
 */

export const DOMAIN = 'sender.example.com'
const RETURN_PATH_HOST = `mst.${DOMAIN}`
const RUA = `dmarc@${RETURN_PATH_HOST}`

const mxPort = (w: ConsoleWorld) => w.t.app.listeners()!.mx.port!

/**
 * A DMARC report of yesterday (so within every period the page offers) from google.com, naming
 * `serverIp` (10 messages, all passing), a stranger that fails (3, quarantined) and another service
 * that passes (2): 15 messages, 12 passing DMARC, 5 not from this server.
 */
export async function feedDmarcReport(w: ConsoleWorld, serverIp: string) {
  const day = Math.floor(Date.now() / 86_400_000) - 1
  const records = record(serverIp, 10) + record('203.0.113.5', 3, { dkim: 'fail', spf: 'fail', disposition: 'quarantine' }) + record('198.51.100.9', 2)
  const xml = googleReport({ reportId: `browser-${Date.now()}`, records, begin: day * 86_400, end: day * 86_400 + 86_399 })
  const sent = await deliverReport(mxPort(w), [RUA], googleStyle(RUA, xml), 'noreply-dmarc-support@google.com')
  if (!/^250/.test(sent.response ?? '')) throw new Error(`the DMARC report was refused: ${sent.response ?? sent}`)
}

/** The delivery of an email the server sent to `recipient`: its id, the email's id and Message-ID, and its return path. */
async function deliveryTo(w: ConsoleWorld, recipient: string) {
  const db = w.t.app.db
  const delivery = await db.selectFrom('deliveries').select(['id', 'email_id']).where('recipient', '=', recipient).orderBy('id', 'desc').executeTakeFirstOrThrow()
  const email = await db.selectFrom('emails').select('message_id').where('id', '=', delivery.email_id).executeTakeFirstOrThrow()
  return { emailId: delivery.email_id, messageId: email.message_id, verp: returnPath(SECRET, delivery.id, RETURN_PATH_HOST) }
}

/** A receiving server's later bounce of the mail to `recipient` (550 5.1.1 user unknown): the address is suppressed. */
export async function feedBounce(w: ConsoleWorld, recipient: string) {
  const sent = await deliveryTo(w, recipient)
  await deliverReport(mxPort(w), [sent.verp], dsn({ messageId: sent.messageId, to: [recipient], recipients: [{ final: recipient, status: '5.1.1' }] }))
  return sent
}

/** A mailbox provider's complaint (abuse) about the mail to `recipient`: the address is suppressed. */
export async function feedComplaint(w: ConsoleWorld, recipient: string) {
  const sent = await deliveryTo(w, recipient)
  await deliverReport(mxPort(w), [sent.verp], arf({ messageId: sent.messageId, to: [recipient], rcptTo: recipient, feedbackType: 'abuse' }))
  return sent
}
