// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { reportMessage } from '../helpers/dmarc.ts'
import { RawSocket } from '../helpers/raw-socket.ts'
import { queuedId, relaySession, sendMessage } from '../helpers/relay-client.ts'
import { deliverReport, dsn, sendToAll } from '../helpers/reports.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/*
 * What a crowd of senders can make a listener hold. The MX listener keeps the first MiB of each
 * message (the default) and reads the rest to drop it; each listener holds at most its budget of
 * message bytes (2 MiB here) from all its sessions together.
 */

const MiB = 1024 * 1024
const FBL = `fbl@${HOSTNAME}`
const LINE = `${'x'.repeat(78)}\r\n`
/** About `bytes` of message body, in lines of 80. */
const body = (bytes: number) => LINE.repeat(Math.ceil(bytes / LINE.length))

let mx: World
let relay: World
let mxPort: number
let relayPort: number
const opened: RawSocket[] = []

beforeAll(async () => {
  mx = await createWorld({ started: true, settings: { 'mx-port': '0', 'smtp-max-in-flight-mb': '2' } })
  mxPort = mx.t.app.listeners()!.mx.port!
  // A relay whose largest message is 1 MiB, so that two of them hold its 2 MiB.
  relay = await createWorld({ started: true, settings: { 'relay-port': '0', 'smtp-max-in-flight-mb': '2', 'smtp-max-message-mb': '1' } })
  relayPort = relay.t.app.listeners()!.relay.port!
})

afterAll(async () => {
  for (const socket of opened) socket.close()
  await mx.close()
  await relay.close()
})

const lastReport = () => mx.t.app.db.selectFrom('received_reports').select(['outcome', 'kind', 'raw_size']).orderBy('id', 'desc').executeTakeFirstOrThrow()

/** A raw session to the MX listener from `from`, in DATA for `to` (354 read). */
async function inData(from: string, to = FBL) {
  const socket = await RawSocket.open(mxPort, '127.0.0.1', from)
  opened.push(socket)
  await socket.reply()
  socket.write(`EHLO client.example\r\nMAIL FROM:<>\r\nRCPT TO:<${to}>\r\nDATA\r\n`)
  expect(await socket.until(/^354 /m)).toMatch(/^354 /m)
  return socket
}

describe('the MX listener keeps the first MiB of a message', () => {
  test('a bounce that returns a 3 MiB original is taken and applied: its status part comes first', async () => {
    const { emailId, messageId, deliveries } = await sendToAll(mx, ['jane@example.net'])
    const [jane] = deliveries
    const returned = ['Content-Type: message/rfc822', '', `Message-ID: ${messageId}`, 'Subject: Hi', '', body(3 * MiB)].join('\r\n')
    const report = dsn({ messageId, to: [jane!.recipient], recipients: [{ final: jane!.recipient }] }).replace('--dsn-boundary--', `--dsn-boundary\r\n${returned}\r\n--dsn-boundary--`)
    expect(report.length).toBeGreaterThan(3 * MiB)
    expect((await deliverReport(mxPort, [jane!.verp], report)).response).toMatch(/^250 /)
    const email = (await mx.t.request('GET', `/api/v1/emails/${emailId}`, { key: mx.key })).body
    expect(email.emailEvents.map((e: any) => e.status)).toContain('BOUNCED')
    expect(await lastReport()).toMatchObject({ outcome: 'applied', kind: 'dsn' })
    expect((await lastReport()).raw_size).toBeGreaterThan(3 * MiB)
  })

  test("a stranger's 8 MiB message to the feedback address is read to its end and taken, and changes nothing", async () => {
    const message = `From: stranger@example.org\r\nSubject: big\r\n\r\n${body(8 * MiB)}`
    expect((await deliverReport(mxPort, [FBL], message)).response).toMatch(/^250 /)
    const kept = await lastReport()
    expect(kept.outcome).toBe('ignored')
    expect(kept.raw_size).toBeGreaterThan(8 * MiB)
  })

  test('a DMARC report longer than what is kept cannot be read whole: refused for good with 552', async () => {
    const attachment = { name: 'report.xml.gz', contentType: 'application/gzip', data: randomBytes(MiB) }
    const answer = await deliverReport(mxPort, ['dmarc@mst.sender.example.com'], reportMessage({ to: 'dmarc@mst.sender.example.com', attachment }))
    expect(answer.response).toMatch(/^552 5\.3\.4 A DMARC report is taken up to 1024 KiB/)
  })
})

describe('a listener holds at most its budget of message bytes', () => {
  test('while it is full, MAIL and DATA get 452 4.3.1 and a message arriving is dropped with 452; once the messages held are answered all goes again', async () => {
    const waiting = await inData('127.0.0.41')
    const notYet = await RawSocket.open(mxPort, '127.0.0.1', '127.0.0.42')
    opened.push(notYet)
    await notYet.reply()
    notYet.write(`EHLO client.example\r\nMAIL FROM:<>\r\nRCPT TO:<${FBL}>\r\n`)
    await notYet.until(/^250 [^\r\n]*\r\n(?![\s\S])/m)
    const [first, second] = [await inData('127.0.0.43'), await inData('127.0.0.44')]
    // Each keeps its first MiB and holds it until its message ends: 2 MiB, all of the budget.
    first.write(body(1.1 * MiB))
    second.write(body(1.1 * MiB))
    const late = await RawSocket.open(mxPort, '127.0.0.1', '127.0.0.45')
    opened.push(late)
    await late.reply()
    late.write('EHLO client.example\r\n')
    await late.reply()
    let refused = ''
    for (let i = 0; i < 20 && !refused.startsWith('452'); i++) {
      late.write('MAIL FROM:<>\r\n')
      refused = await late.reply()
      if (!refused.startsWith('250')) continue
      late.write('RSET\r\n')
      await late.reply()
      await Bun.sleep(100)
    }
    expect(refused).toMatch(/^452 4\.3\.1 Insufficient system storage/)
    notYet.write('DATA\r\n')
    expect(await notYet.reply()).toMatch(/^452 4\.3\.1 /)
    waiting.write('Subject: small\r\n\r\nsmall\r\n.\r\n')
    expect(await waiting.reply()).toMatch(/^452 4\.3\.1 /)

    for (const socket of [first, second]) {
      socket.write('.\r\n')
      expect(await socket.reply(10_000)).toMatch(/^250 /)
    }
    late.write('MAIL FROM:<>\r\n')
    expect(await late.reply()).toMatch(/^250 /)
    // Its transaction is still open: DATA again.
    notYet.write('DATA\r\n')
    expect(await notYet.reply()).toMatch(/^354 /)
    notYet.write('Subject: again\r\n\r\nagain\r\n.\r\n')
    expect(await notYet.reply()).toMatch(/^250 /)
    expect(await sendMessage(waiting, '', [FBL], 'Subject: again\r\n\r\nagain\r\n')).toMatch(/^250 /)
  }, 30_000)

  test('on the relay too: a message arriving past the budget is not queued, and the client that sends it again later is answered 250', async () => {
    const small = 'From: ada@sender.example.com\r\nTo: bob@example.net\r\nSubject: small\r\n\r\nsmall\r\n'
    const sessions = await Promise.all([0, 1, 2, 3].map(async (n) => relaySession(relayPort, relay.key, 'starttls', `127.0.0.${50 + n}`)))
    opened.push(...sessions)
    const [first, second, third, fourth] = sessions as [RawSocket, RawSocket, RawSocket, RawSocket]
    for (const socket of [first, second, third]) {
      socket.write('MAIL FROM:<ada@sender.example.com>\r\nRCPT TO:<bob@example.net>\r\nDATA\r\n')
      await socket.until(/^354 /m)
    }
    // Two messages over the largest (1 MiB) hold a MiB each while they arrive: the whole budget.
    first.write(body(1.05 * MiB))
    second.write(body(1.05 * MiB))
    let refused = ''
    for (let i = 0; i < 20 && !refused.startsWith('452'); i++) {
      fourth.write('MAIL FROM:<ada@sender.example.com>\r\n')
      refused = await fourth.reply()
      if (!refused.startsWith('250')) continue
      fourth.write('RSET\r\n')
      await fourth.reply()
      await Bun.sleep(100)
    }
    expect(refused).toMatch(/^452 4\.3\.1 /)
    const queued = async () => Number((await relay.t.app.db.selectFrom('emails').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
    const before = await queued()
    third.write(`${small}.\r\n`)
    expect(await third.reply()).toMatch(/^452 4\.3\.1 /)
    for (const socket of [first, second]) {
      socket.write('.\r\n')
      expect(await socket.reply(10_000)).toMatch(/^552 5\.3\.4 /)
    }
    expect(await queued()).toBe(before)
    expect(queuedId(await sendMessage(third, 'ada@sender.example.com', ['bob@example.net'], small))).toBeDefined()
    expect(await queued()).toBe(before + 1)
  }, 30_000)
})
