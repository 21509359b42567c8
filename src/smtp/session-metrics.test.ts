import { describe, expect, test } from 'bun:test'
import type { SMTPServerOptions, SMTPServerSession } from 'smtp-server'
import { createRegistry } from '../lib/metrics.ts'
import { smtpError } from './listener.ts'
import { sessionMetrics } from './session-metrics.ts'

type Answer = Error | null | undefined
type Handler = (...args: any[]) => void

/** A listener's options whose handlers answer what the test says, wrapped for counting. */
function listener(answers: { connect?: Answer; rcpt?: Answer; data?: Answer[] } = {}) {
  const registry = createRegistry()
  const data = [...(answers.data ?? [])]
  const options = sessionMetrics(registry)('relay')({
    onConnect: (_session, callback) => callback(answers.connect ?? undefined),
    onAuth: (_auth, _session, callback) => callback(null, { user: 'project' }),
    onRcptTo: (_address, _session, callback) => callback(answers.rcpt ?? undefined),
    onData: (_stream, _session, callback) => callback(data.shift() ?? null, 'Queued'),
    onClose: () => {},
  } satisfies SMTPServerOptions)
  const call = (name: keyof SMTPServerOptions, session: SMTPServerSession, ...args: unknown[]) =>
    new Promise<unknown[]>((resolve) => (options[name] as Handler)(...args, session, (...answer: unknown[]) => resolve(answer)))
  const page = async () => (await registry.expose()).split('\n').filter((line) => line.startsWith('mailstead_smtp_'))
  return { options, call, page }
}

const newSession = () => ({ remoteAddress: '192.0.2.1' }) as SMTPServerSession

describe('SMTP sessions, counted when they close', () => {
  test('accepted when a message was taken; each message taken is counted', async () => {
    const { options, call, page } = listener()
    const session = newSession()
    await call('onConnect', session)
    await call('onData', session, {})
    await call('onData', session, {})
    options.onClose!(session, () => {})
    expect(await page()).toEqual([
      'mailstead_smtp_sessions_total{listener="relay",result="accepted"} 1',
      'mailstead_smtp_messages_received_total{listener="relay"} 2',
    ])
  })

  test('rejected when something was refused and nothing taken: the connection, a recipient, a message', async () => {
    const cases: Array<[{ connect?: Answer; rcpt?: Answer; data?: Answer[] }, Array<keyof SMTPServerOptions>]> = [
      [{ connect: smtpError(421, 'busy') }, ['onConnect']],
      [{ rcpt: smtpError(550, 'no such user') }, ['onConnect', 'onRcptTo']],
      [{ data: [smtpError(552, 'too big')] }, ['onConnect', 'onRcptTo', 'onData']],
    ]
    for (const [answers, steps] of cases) {
      const { options, call, page } = listener(answers)
      const session = newSession()
      for (const step of steps) await (step === 'onConnect' ? call(step, session) : call(step, session, {}))
      options.onClose!(session, () => {})
      expect(await page()).toEqual(['mailstead_smtp_sessions_total{listener="relay",result="rejected"} 1'])
    }
  })

  test('error when the server failed once (451, or an error without a code), even if another message was taken', async () => {
    for (const failure of [smtpError(451, 'try later'), new Error('no code')]) {
      const { options, call, page } = listener({ data: [null, failure] })
      const session = newSession()
      await call('onData', session, {})
      await call('onData', session, {})
      options.onClose!(session, () => {})
      expect(await page()).toEqual([
        'mailstead_smtp_sessions_total{listener="relay",result="error"} 1',
        'mailstead_smtp_messages_received_total{listener="relay"} 1',
      ])
    }
  })

  test('empty when the client left without trying: a probe', async () => {
    const { options, call, page } = listener()
    const session = newSession()
    await call('onConnect', session)
    options.onClose!(session, () => {})
    expect(await page()).toEqual(['mailstead_smtp_sessions_total{listener="relay",result="empty"} 1'])
  })

  test('the handlers still answer as before, their values passed through', async () => {
    const { call } = listener()
    expect(await call('onAuth', newSession(), { username: 'x', password: 'y' })).toEqual([null, { user: 'project' }])
    expect(await call('onData', newSession(), {})).toEqual([null, 'Queued'])
  })
})
