import { describe, expect, test } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { dkimSign } from 'mailauth/lib/dkim/sign'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import MailComposer from 'nodemailer/lib/mail-composer'
import { relaxedHeader, signMessage, SIGNED_HEADERS, type SigningKey } from './dkim.ts'

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const ed = generateKeyPairSync('ed25519')
const der = (key: typeof rsa.publicKey) => key.export({ type: 'spki', format: 'der' }) as Buffer
const records: Record<string, string> = {
  'rsa._domainkey.sender.example.com': `v=DKIM1; k=rsa; p=${der(rsa.publicKey).toString('base64')}`,
  // An Ed25519 record holds the 32 bytes of the key alone (RFC 8463).
  'ed._domainkey.sender.example.com': `v=DKIM1; k=ed25519; p=${der(ed.publicKey).subarray(-32).toString('base64')}`,
}
const keys: SigningKey[] = [
  { domain: 'sender.example.com', selector: 'rsa', privateKeyPem: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: 'rsa-sha256' },
  { domain: 'sender.example.com', selector: 'ed', privateKeyPem: ed.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: 'ed25519-sha256' },
]
const AT = Date.UTC(2026, 10, 23, 12)

async function verify(message: Buffer) {
  const result = await dkimVerify(message, {
    resolver: async (name: string) => (records[name] ? [[records[name]]] : Promise.reject(Object.assign(new Error('no record'), { code: 'ENOTFOUND' }))),
    curTime: new Date(AT + 1000),
  } as never)
  return result.results.map((r: any) => `${r.algo}:${r.status.result}${r.status.comment ? ` (${r.status.comment})` : ''}`)
}

/** The results without their comments. */
const results = async (message: Buffer) => (await verify(message)).map((r) => r.split(' ')[0])
const bytes = (...parts: Array<string | Buffer>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)))
const head = 'From: "Ada" <ada@sender.example.com>\r\nTo: bob@example.net\r\nSubject: Hello\r\nDate: Mon, 23 Nov 2026 12:00:00 +0000\r\nMessage-ID: <1@sender.example.com>\r\n'
const composed = await new MailComposer({
  from: 'Ada <ada@sender.example.com>',
  to: 'bob@example.net, carol@example.net',
  subject: 'Grüße ✓',
  text: 'Hello\n\nwith a line   of spaces   \n',
  html: '<p>Hello</p>',
  attachments: [{ filename: 'a.bin', content: Buffer.alloc(3000, 7) }],
  headers: { 'List-Unsubscribe': '<https://sender.example.com/u/1>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
})
  .compile()
  .build()
const line = 'x'.repeat(70) + ' \t end\r\n'
const tenMb = bytes(head, '\r\n', line.repeat(Math.ceil((10 * 1024 * 1024) / line.length)))

const shapes: Array<[string, Buffer]> = [
  ['a plain message', bytes(head, '\r\nHello\r\n')],
  ['an empty body', bytes(head, '\r\n')],
  ['no final CRLF', bytes(head, '\r\nHello, no line end')],
  ['trailing whitespace and blank lines at the end', bytes(head, '\r\nHello  \r\nworld\t \r\n \r\n\r\n\t\r\n\r\n')],
  ['whitespace runs and tabs inside lines, a line of spaces between', bytes(head, '\r\n  two\t\tsp  aces  here \r\n   \r\n\tnext\r\n')],
  ['blank lines at the start of the body', bytes(head, '\r\n\r\n\r\nafter blank lines\r\n')],
  ['a CRLF-only body', bytes(head, '\r\n\r\n\r\n\r\n')],
  ['a body of whitespace only', bytes(head, '\r\n \t \r\n  \r\n')],
  [
    'long and folded headers',
    bytes(
      'From: "Ada  Lovelace"\r\n\t<ada@sender.example.com>\r\n',
      `To: ${Array.from({ length: 30 }, (_, i) => `user${i}@example.net`).join(',\r\n  ')}\r\n`,
      `Subject: ${'a long subject '.repeat(40)}\r\n`,
      'Subject2: not signed\r\nDate: Mon, 23 Nov 2026 12:00:00 +0000\r\nContent-Type: text/plain;\r\n charset="utf-8";   \r\n\tformat=flowed\r\n',
      '\r\nbody\r\n',
    ),
  ],
  ['duplicate headers', bytes('From: ada@sender.example.com\r\nTo: a@example.net\r\nTo: b@example.net\r\nSubject: one\r\nX-Other: x\r\nSubject: two\r\n\r\nbody\r\n')],
  ['WSP around the colon and an empty value', bytes('From  :\t ada@sender.example.com  \r\nCc:\r\nSubject:x\r\n\r\nbody\r\n')],
  ['8-bit bytes in headers and body', bytes('From: Zoë <ada@sender.example.com>\r\nSubject: Grüße, 日本語 ✓\r\nTo: bob@example.net\r\n\r\n', Buffer.from([0xff, 0xfe, 0x80, 0x20, 0x20, 0xc3, 0xa9, 0x0d, 0x0a]), 'naïve   café\r\n')],
  ['bare LF line ends', Buffer.from(bytes(head, '\r\nline one  \r\nline two\r\n\r\n').toString('latin1').replace(/\r\n/g, '\n'), 'latin1')],
  ['mixed CRLF and bare LF', bytes('From: ada@sender.example.com\nSubject: mixed\r\n\r\none\ntwo\r\n\n')],
  ['a multipart message from MailComposer', composed],
  ['a 10 MB body', tenMb],
]

describe('signMessage', () => {
  test.each(shapes)('%s: RSA and Ed25519 signatures pass mailauth, and the body hash is mailauth\'s', async (_, message) => {
    const header = await signMessage(message, keys, AT)
    expect(header).toMatch(/^DKIM-Signature: [^]*\r\nDKIM-Signature: [^]*\r\n$/)
    expect(header.split('\r\n').every((l) => l.length <= 78)).toBe(true)
    expect(await verify(bytes(header, message))).toEqual(['rsa-sha256:pass', 'ed25519-sha256:pass'])
    // The body hash is the one mailauth's own signer makes.
    const theirs = await dkimSign(message, { canonicalization: 'relaxed/relaxed', headerList: SIGNED_HEADERS, signatureData: [{ signingDomain: 'sender.example.com', selector: 'rsa', privateKey: keys[0]!.privateKeyPem, algorithm: 'rsa-sha256' }] } as never)
    const bh = (s: string) => /bh=([^;]+);/.exec(s.replace(/\r\n[ \t]+/g, ' '))?.[1]
    if (theirs.signatures) expect(bh(header)).toBe(bh(theirs.signatures)!)
  })

  test('a message with no empty line is all header, its body empty', async () => {
    const header = await signMessage(Buffer.from(head), keys.slice(0, 1), AT)
    expect(header).toContain('bh=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=;')
  })

  test('signs every occurrence of the signed headers bottom up, and only those; t= is the time given', async () => {
    const header = (await signMessage(shapes[9]![1], keys.slice(0, 1), AT)).replace(/\r\n[ \t]+/g, ' ')
    expect(header).toMatch(/ h=subject:subject:to:to:from:from:to:subject:date;/)
    expect(header).toContain(` t=${AT / 1000};`)
    expect(header).toContain(' d=sender.example.com; s=rsa;')
  })

  test('over-signs From, To, Subject and Date: one of them added after signing breaks the signature', async () => {
    const message = shapes[0]![1]
    const header = await signMessage(message, keys, AT)
    for (const added of ['From: mallory@evil.example\r\n', 'To: other@example.net\r\n', 'Subject: Urgent\r\n', 'Date: Tue, 24 Nov 2026 12:00:00 +0000\r\n']) {
      expect(await results(bytes(header, added, message))).toEqual(['rsa-sha256:fail', 'ed25519-sha256:fail'])
    }
  })

  test('signs Content-Transfer-Encoding, In-Reply-To and References', async () => {
    const message = bytes(head, 'In-Reply-To: <0@sender.example.com>\r\nReferences: <0@sender.example.com>\r\nContent-Transfer-Encoding: 7bit\r\n\r\nHi\r\n')
    const header = (await signMessage(message, keys.slice(0, 1), AT)).replace(/\r\n[ \t]+/g, ' ')
    expect(/ h=([^;]+);/.exec(header)![1]!.split(':')).toEqual(expect.arrayContaining(['content-transfer-encoding', 'in-reply-to', 'references']))
    expect(await results(bytes(header, message))).toEqual(['rsa-sha256:pass'])
    expect(await results(bytes(header, message.toString().replace('7bit', 'base64')))).toEqual(['rsa-sha256:fail'])
  })

  test('one header per key, in the order given', async () => {
    const header = await signMessage(shapes[0]![1], [keys[1]!], AT)
    expect(header.match(/^DKIM-Signature:/gm)).toHaveLength(1)
    expect(header).toContain('a=ed25519-sha256;')
    expect(await verify(bytes(header, shapes[0]![1]))).toEqual(['ed25519-sha256:pass'])
  })

  test('relaxed header canonicalisation takes SP and HTAB as whitespace, no other byte (RFC 6376 3.4.2, RFC 5234 WSP)', () => {
    expect(relaxedHeader('SubJect \t: \t a  \r\n\tb \t\r\n')).toBe('subject:a b\r\n')
    // 0xA0 is the second byte of "à" in UTF-8: it is not whitespace. (mailauth's own canonicalisation
    // reads it as whitespace, through JavaScript's \s, so its signer and verifier disagree with the RFC there.)
    const latin1 = Buffer.from('Subject: voilà  là\r\n', 'utf8').toString('latin1')
    expect(Buffer.from(relaxedHeader(latin1), 'latin1').toString('utf8')).toBe('subject:voilà là\r\n')
    expect(relaxedHeader('X: a\x0bb\x0c\r\n')).toBe('x:a\x0bb\x0c\r\n')
  })
})
