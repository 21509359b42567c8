import { canonicalIp } from '../lib/ip.ts'
import * as p from './parsers.ts'
import { setting } from './setting.ts'

/** The SMTP listeners' settings (the MX, the relay on 587 and 465, their TLS and limits), in SETTINGS' order. */
export const SMTP_SETTINGS = [
  setting({
    key: 'smtpHost',
    description: 'Address the SMTP listeners (MX and relay) listen on; 0.0.0.0 to take mail from the internet',
    allowed: 'an IP address or host name',
    parse: p.host,
    fallback: () => '127.0.0.1',
  }),
  setting({
    key: 'mxPort',
    description: 'Port of the MX listener that receives bounces and complaints (off: no listener)',
    allowed: 'an integer from 0 to 65535, or off',
    parse: p.portOrOff,
    fallback: () => 25,
    format: (port) => String(port ?? 'off'),
  }),
  setting({
    key: 'fblAddress',
    description: 'Address that receives abuse feedback reports (complaints)',
    allowed: 'an email address',
    parse: (text) => (/^[^\s@]+@[^\s@]+$/.test(text) ? text.toLowerCase() : undefined),
    fallback: (c) => `fbl@${c.hostname}`,
    shownDefault: '`fbl@<hostname>`',
  }),
  setting({
    key: 'fblSenders',
    description:
      'Feedback-loop senders whose complaints at fblAddress count without a token of this server: comma-separated domains (a DKIM signature by one of them, or a name under it, must pass; off: none)',
    allowed: 'a comma-separated list of domains, or off',
    parse: (text) => (text === 'off' ? [] : p.listOf(p.hostname)(text)),
    fallback: () => [],
    format: (domains) => (domains.length > 0 ? domains.join(',') : 'off'),
  }),
  setting({
    key: 'relayPort',
    description: 'Port of the SMTP relay for applications (STARTTLS; off: no relay)',
    allowed: 'an integer from 0 to 65535, or off',
    parse: p.portOrOff,
    fallback: () => 587,
    format: (port) => String(port ?? 'off'),
  }),
  setting({
    key: 'relayTlsPort',
    description: 'Port of the SMTP relay with TLS from the start; only with MAILSTEAD_TLS_CERT (off: none)',
    allowed: 'an integer from 0 to 65535, or off',
    parse: p.portOrOff,
    fallback: () => 465,
    format: (port) => String(port ?? 'off'),
  }),
  setting({
    key: 'relayAllowInsecureAuth',
    description: 'Let relay clients log in without TLS (local development only)',
    allowed: 'true or false',
    parse: p.boolean,
    fallback: () => false,
  }),
  setting({
    key: 'relayMaxRecipients',
    description: 'Recipients one relayed message may have',
    allowed: 'an integer from 1 to 1000',
    parse: p.integer(1, 1000),
    fallback: () => 50,
  }),
  setting({
    key: 'smtpMaxMessageMb',
    description: 'Largest message the SMTP listeners accept, in MiB',
    allowed: 'an integer from 1 to 100',
    parse: p.integer(1, 100),
    fallback: () => 10,
  }),
  setting({
    key: 'smtpMaxConnectionsPerIp',
    description: 'SMTP connections one client (IPv6: one /64) may hold open at once, on the MX listener and on the relay (587 and 465 together)',
    allowed: 'an integer from 1 to 10000',
    parse: p.integer(1, 10_000),
    fallback: () => 20,
  }),
  setting({
    key: 'smtpMaxConnections',
    description: 'SMTP connections one listener holds open at once, from all addresses together (421 past it)',
    allowed: 'an integer from 1 to 100000',
    parse: p.integer(1, 100_000),
    fallback: () => 500,
  }),
  setting({
    key: 'smtpProxyFrom',
    description:
      "Load balancers in front of the SMTP listeners that open each connection with a PROXY protocol (v1) header naming the client, comma-separated: from them the header is required, and its address is the client that limits, the login throttle and logs see (none: the socket's peer is the client)",
    allowed: 'a comma-separated list of IP addresses, or none',
    parse: (text) => (text === 'none' ? [] : p.listOf(canonicalIp)(text)),
    fallback: () => [],
    shownDefault: 'none',
    format: (ips) => (ips.length > 0 ? ips.join(',') : 'none'),
  }),
  setting({
    key: 'smtpCommandTimeoutSeconds',
    description: 'Seconds one SMTP command line may take from its first byte to its end, and a TLS handshake in all (421 past it)',
    allowed: 'an integer from 1 to 600',
    parse: p.integer(1, 600),
    fallback: () => 30,
  }),
  setting({
    key: 'smtpDataTimeoutSeconds',
    description: 'Seconds a message (DATA) may take to arrive, plus one for each 64 KiB received (421 past it)',
    allowed: 'an integer from 1 to 3600',
    parse: p.integer(1, 3600),
    fallback: () => 50,
  }),
  setting({
    key: 'smtpAnonymousTimeoutSeconds',
    description:
      'Seconds an SMTP session without a login (every MX session, a relay session before AUTH) may run from its start or its last message to the end of its next message, plus one for each 64 KiB of it: on the relay, the time to STARTTLS and AUTH (421 past it)',
    allowed: 'an integer from 1 to 3600',
    parse: p.integer(1, 3600),
    fallback: () => 50,
  }),
  setting({
    key: 'smtpMaxCommandsWithoutMessage',
    description: "Commands an SMTP session may send between messages (NOOP, RSET, EHLO, MAIL, refused ones...; a transaction's RCPTs aside), 421 past it",
    allowed: 'an integer from 5 to 10000',
    parse: p.integer(5, 10_000),
    fallback: () => 50,
  }),
  setting({
    key: 'smtpMaxInFlightMb',
    description:
      'MiB of messages one SMTP listener holds at once, arriving or being handled, from all its sessions together (at least one largest message): past it MAIL and DATA get 452 4.3.1 and a message arriving is dropped with 452',
    allowed: 'an integer from 1 to 4096',
    parse: p.integer(1, 4096),
    fallback: () => 64,
  }),
  setting({
    key: 'mxKeepKb',
    description:
      "KiB of each message the MX listener keeps and reads (a report's useful parts come first): the rest is read and dropped, and the message accepted; a DMARC report longer than this is refused with 552",
    allowed: 'an integer from 64 to 102400',
    parse: p.integer(64, 102_400),
    fallback: () => 1024,
  }),
  setting({
    key: 'tlsCert',
    description: 'PEM certificate (chain) for the SMTP listeners; reloaded when the file changes',
    allowed: 'a file path',
    parse: p.nonEmpty,
    fallback: () => null,
    shownDefault: 'a self-signed certificate generated into the data directory',
  }),
  setting({
    key: 'tlsKey',
    description: 'PEM private key of MAILSTEAD_TLS_CERT',
    allowed: 'a file path',
    parse: p.nonEmpty,
    fallback: () => null,
    shownDefault: 'none',
  }),
] as const
