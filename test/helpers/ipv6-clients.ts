// Run inside a network namespace (`unshare -n`) whose loopback takes 2001:db8:1:2::/64 and
// 2001:db8:1:3::/64 as its own (local routes, and ip_nonlocal_bind so that a client may connect
// from any address of them): one IPv6 host that changes its address within its /64 at each
// connection. Starts the MX listener and the relay on `::` and prints, as one JSON line, the
// greetings of four connections to the MX listener (three from one /64, one from another), and
// how long a right login took after five wrong ones from five addresses of one /64, from a sixth
// address of it and from another /64.
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { RawSocket } from './raw-socket.ts'
import { createWorld } from './world.ts'

const SERVER = '2001:db8:1:2::1'
const w = await createWorld({ started: true, settings: { 'smtp-host': '::', 'mx-port': '0', 'relay-port': '0', 'smtp-max-connections-per-ip': '2' } })
const { mx, relay } = w.t.app.listeners()!

async function greeting(from: string) {
  const socket = await RawSocket.open(mx.port!, SERVER, from)
  return { socket, reply: (await socket.reply()).slice(0, 3) }
}

/** Logs in to the relay from `from` (STARTTLS first); answers how long it took and whether the key was taken. */
async function login(pass: string, from: string) {
  const started = performance.now()
  const connection = new SMTPConnection({ host: SERVER, port: relay.port!, localAddress: from, tls: { rejectUnauthorized: false } } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  const ok = await new Promise<boolean>((resolve) => connection.login({ user: 'app', pass }, (error) => resolve(!error)))
  connection.quit()
  return { ok, ms: performance.now() - started }
}

try {
  const held = [await greeting('2001:db8:1:2::a'), await greeting('2001:db8:1:2::b'), await greeting('2001:db8:1:2:ffff::c'), await greeting('2001:db8:1:3::a')]
  for (const { socket } of held) socket.close()
  const wrong = []
  for (let i = 0; i < 5; i++) wrong.push((await login(`sk_${'x'.repeat(43)}`, `2001:db8:1:2::${(0x10 + i).toString(16)}`)).ok)
  const sameBlock = await login(w.key, '2001:db8:1:2::ff')
  const otherBlock = await login(w.key, '2001:db8:1:3::ff')
  console.log(JSON.stringify({ greetings: held.map((h) => h.reply), wrong, sameBlock, otherBlock }))
} finally {
  await w.close()
}
