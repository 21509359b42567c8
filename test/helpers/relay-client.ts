import { RawSocket } from './raw-socket.ts'

/**
 * An SMTP client for the relay written byte by byte, so that a test sends exactly the bytes it
 * means (nodemailer's client would turn a bare CR into a line break on the way).
 */
export async function relaySession(port: number, key: string | undefined, tls: 'starttls' | 'implicit' | 'none' = 'starttls', from?: string): Promise<RawSocket> {
  const socket = tls === 'implicit' ? await RawSocket.openTls(port, '127.0.0.1', from) : await RawSocket.open(port, '127.0.0.1', from)
  await socket.reply()
  socket.write('EHLO client.example\r\n')
  await socket.reply()
  if (tls === 'starttls') {
    socket.write('STARTTLS\r\n')
    expectCode(await socket.reply(), 220)
    await socket.startTls()
    socket.write('EHLO client.example\r\n')
    await socket.reply()
  }
  if (key !== undefined) {
    socket.write(`AUTH PLAIN ${Buffer.from(`\0mailstead\0${key}`).toString('base64')}\r\n`)
    expectCode(await socket.reply(), 235)
  }
  return socket
}

/** One transaction; answers the last reply (to DATA's end, or the first refusal before it). */
export async function sendMessage(socket: RawSocket, from: string, to: string[], message: string | Uint8Array, options: { smtpUtf8?: boolean } = {}) {
  socket.write(`MAIL FROM:<${from}>${options.smtpUtf8 ? ' SMTPUTF8' : ''}\r\n`)
  let reply = await socket.reply()
  if (!reply.startsWith('250')) return reply
  for (const recipient of to) {
    socket.write(`RCPT TO:<${recipient}>\r\n`)
    reply = await socket.reply()
    if (!reply.startsWith('250')) return reply
  }
  socket.write('DATA\r\n')
  reply = await socket.reply()
  if (!reply.startsWith('354')) return reply
  const bytes = typeof message === 'string' ? Buffer.from(message) : Buffer.from(message)
  socket.write(bytes)
  socket.write(bytes.at(-1) === 0x0a ? '.\r\n' : '\r\n.\r\n')
  return socket.reply()
}

/** The email id in a 250 reply to DATA. */
export const queuedId = (reply: string) => /Queued as (\S+)/.exec(reply)?.[1]

function expectCode(reply: string, code: number) {
  if (!reply.startsWith(String(code))) throw new Error(`expected ${code}, got ${JSON.stringify(reply)}`)
}
