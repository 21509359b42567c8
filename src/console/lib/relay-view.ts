import type { RelaySettings } from '../api/server.api.ts'

/** The port to suggest: STARTTLS (587) when there is one, as most clients expect; else TLS (465). */
export function preferredPort(settings: RelaySettings): RelaySettings['ports'][number] | undefined {
  return settings.ports.find((p) => p.security === 'STARTTLS') ?? settings.ports[0]
}

/** Whether only programs on the server's own machine can connect. */
export const loopbackOnly = (address: string) => address === 'localhost' || address === '::1' || address.startsWith('127.')

/** A nodemailer transport for this server's relay, ready to paste. */
export function nodemailerSnippet(settings: RelaySettings): string {
  const port = preferredPort(settings)
  const lines = [
    "import nodemailer from 'nodemailer'",
    '',
    'const transport = nodemailer.createTransport({',
    `  host: '${settings.host}',`,
    `  port: ${port?.port ?? 587},`,
    port?.security === 'TLS' ? '  secure: true, // TLS from the first byte' : '  requireTLS: true, // STARTTLS before logging in',
    '  // The password is a secret key of the project (sk_...); the user name can be anything.',
    "  auth: { user: 'mailstead', pass: process.env.MAILSTEAD_KEY },",
    ...(settings.certificate === 'self-signed'
      ? ['  // The server has a self-signed certificate: trust it with', '  // tls: { ca: <its certificate> }, or give it a real one (MAILSTEAD_TLS_CERT).']
      : []),
    '})',
    '',
    'await transport.sendMail({',
    "  from: 'app@your-domain.example', // on a verified domain of the project",
    "  to: 'someone@example.com',",
    "  subject: 'Hello',",
    "  text: 'Sent through Mailstead',",
    '})',
  ]
  return lines.join('\n')
}
