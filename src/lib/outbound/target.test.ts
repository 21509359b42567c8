import { describe, expect, test } from 'bun:test'
import { checkTarget, TargetRefused, type TargetOptions } from './target.ts'

const noDns: TargetOptions['resolve'] = async (host) => {
  throw new Error(`resolve(${host}) was not expected`)
}
const strict = (resolve = noDns): TargetOptions => ({ allowPrivate: false, resolve })
const answering = (...addresses: string[]) => strict(async () => addresses)

/** One address of each range that must be refused, with the words of the refusal. */
const REFUSED_ADDRESSES: Array<[string, string]> = [
  ['127.0.0.1', 'a loopback address'],
  ['127.255.255.254', 'a loopback address'],
  ['0.0.0.0', 'an unspecified address'],
  ['0.1.2.3', 'a "this network" address'],
  ['10.0.0.1', 'a private address'],
  ['10.255.255.255', 'a private address'],
  ['172.16.0.1', 'a private address'],
  ['172.31.255.255', 'a private address'],
  ['192.168.1.1', 'a private address'],
  ['169.254.169.254', 'a link-local address'],
  ['100.64.0.1', 'a carrier-grade NAT address'],
  ['100.127.255.255', 'a carrier-grade NAT address'],
  ['224.0.0.1', 'a multicast address'],
  ['239.255.255.250', 'a multicast address'],
  ['255.255.255.255', 'a broadcast address'],
  ['240.0.0.1', 'a reserved address'],
  ['192.0.0.8', 'a reserved address (IETF protocol assignments)'],
  ['192.88.99.1', 'a reserved address (6to4 relay anycast)'],
  ['198.18.0.1', 'a reserved address (benchmarking)'],
  ['198.19.255.255', 'a reserved address (benchmarking)'],
  ['192.0.2.1', 'a documentation address'],
  ['198.51.100.7', 'a documentation address'],
  ['203.0.113.9', 'a documentation address'],
  ['::1', 'a loopback address'],
  ['::', 'an unspecified address'],
  ['fc00::1', 'a private address (unique local)'],
  ['fd12:3456::1', 'a private address (unique local)'],
  ['fe80::1', 'a link-local address'],
  ['febf::1', 'a link-local address'],
  ['fec0::1', 'a private address (site-local)'],
  ['ff02::1', 'a multicast address'],
  ['2001:db8::1', 'a documentation address'],
  ['3fff::1', 'a documentation address'],
  ['100::1', 'a reserved address (discard-only)'],
  ['2001::1', 'a reserved address (IETF protocol assignments)'],
  ['64:ff9b:1::1', 'a private address (local-use NAT64)'],
  ['::7f00:1', 'a reserved address (not global unicast)'],
  ['4000::1', 'a reserved address (not global unicast)'],
  ['::ffff:127.0.0.1', 'a loopback address (IPv4-mapped 127.0.0.1)'],
  ['::ffff:7f00:1', 'a loopback address (IPv4-mapped 127.0.0.1)'],
  ['0:0:0:0:0:ffff:10.0.0.1', 'a private address (IPv4-mapped 10.0.0.1)'],
  ['::ffff:169.254.169.254', 'a link-local address (IPv4-mapped 169.254.169.254)'],
  ['::ffff:0.0.0.0', 'an unspecified address (IPv4-mapped 0.0.0.0)'],
  ['::ffff:100.64.0.1', 'a carrier-grade NAT address (IPv4-mapped 100.64.0.1)'],
  ['64:ff9b::a9fe:a9fe', 'a link-local address (NAT64 169.254.169.254)'],
  ['2002:7f00:1::', 'a loopback address (6to4 127.0.0.1)'],
]

/** Public addresses, including the neighbours of refused ranges. */
const PUBLIC_ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '192.0.3.1',
  '198.20.0.1',
  '223.255.255.255',
  '11.0.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
]

const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address)

describe('an IP address in the URL', () => {
  test.each(REFUSED_ADDRESSES)('%s is refused as %s', async (address, kind) => {
    const checking = checkTarget(`https://${bracketed(address)}/hook`, strict())
    await expect(checking).rejects.toBeInstanceOf(TargetRefused)
    await expect(checking).rejects.toThrow(kind)
  })

  test.each(PUBLIC_ADDRESSES)('%s is allowed, without asking DNS', async (address) => {
    const target = await checkTarget(`http://${bracketed(address)}:8080/hook`, strict())
    expect(target.url.port).toBe('8080')
    expect(target.addresses).toHaveLength(1)
  })

  test('the refusal says what the address is and how to allow it', async () => {
    await expect(checkTarget('http://127.0.0.1/', strict())).rejects.toThrow(
      '127.0.0.1 is a loopback address; set MAILSTEAD_WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow private targets',
    )
  })
})

describe('odd spellings of an IPv4 address are read as a browser reads them', () => {
  test.each([
    ['http://2130706433/', '127.0.0.1', 'a loopback address'],
    ['http://0x7f000001/', '127.0.0.1', 'a loopback address'],
    ['http://017700000001/', '127.0.0.1', 'a loopback address'],
    ['http://0177.0.0.1/', '127.0.0.1', 'a loopback address'],
    ['http://0x7f.1/', '127.0.0.1', 'a loopback address'],
    ['http://0x7f.0x0.0x0.0x1/', '127.0.0.1', 'a loopback address'],
    ['http://127.1/', '127.0.0.1', 'a loopback address'],
    ['http://127.0.0.1./', '127.0.0.1', 'a loopback address'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1', 'a loopback address'],
    ['http://0/', '0.0.0.0', 'an unspecified address'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254', 'a link-local address'],
    ['http://2852039166/', '169.254.169.254', 'a link-local address'],
    ['http://3232235521/', '192.168.0.1', 'a private address'],
    ['http://012.0.0.1/', '10.0.0.1', 'a private address'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1', 'a loopback address (IPv4-mapped 127.0.0.1)'],
  ])('%s is %s, refused', async (url, address, kind) => {
    await expect(checkTarget(url, strict())).rejects.toThrow(`${address} is ${kind}`)
  })
})

describe('a host name', () => {
  test.each(REFUSED_ADDRESSES)('that resolves to %s is refused as %s', async (address, kind) => {
    const checking = checkTarget('https://hooks.example.com/in', answering(address))
    await expect(checking).rejects.toBeInstanceOf(TargetRefused)
    await expect(checking).rejects.toThrow(`hooks.example.com resolves to ${address}, ${kind}`)
  })

  test('is refused when any one of its addresses is private, wherever it comes in the answer', async () => {
    await expect(checkTarget('https://hooks.example.com/', answering('93.184.215.14', '10.0.0.7'))).rejects.toThrow('10.0.0.7')
    await expect(checkTarget('https://hooks.example.com/', answering('2606:4700::1', '::1'))).rejects.toThrow('::1')
  })

  test('with public addresses is allowed, and they are the addresses to connect to', async () => {
    const asked: string[] = []
    const target = await checkTarget('https://Hooks.Example.com/in?x=1', strict(async (host) => (asked.push(host), ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])))
    expect(asked).toEqual(['hooks.example.com'])
    expect(target.addresses).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])
    expect(target.url.href).toBe('https://hooks.example.com/in?x=1')
  })

  test.each(['localhost', 'LOCALHOST.', 'api.localhost'])('%s is refused without asking DNS', async (host) => {
    await expect(checkTarget(`http://${host}/`, strict())).rejects.toThrow('is a loopback name')
  })

  test('with no address fails, but is not a refusal (DNS may change)', async () => {
    const checking = checkTarget('https://nowhere.example.com/', answering())
    await expect(checking).rejects.toThrow('nowhere.example.com has no address')
    await expect(checking).rejects.not.toBeInstanceOf(TargetRefused)
  })

  test('whose DNS fails passes the failure on', async () => {
    const failing = strict(async () => {
      throw new Error('SERVFAIL')
    })
    await expect(checkTarget('https://hooks.example.com/', failing)).rejects.toThrow('SERVFAIL')
  })

  test('that resolves to something other than an address is refused', async () => {
    await expect(checkTarget('https://hooks.example.com/', answering('evil.example.net'))).rejects.toBeInstanceOf(TargetRefused)
  })
})

describe('the URL', () => {
  test.each([
    ['ftp://example.com/file', 'only http: and https:'],
    ['file:///etc/passwd', 'only http: and https:'],
    ['gopher://example.com:70/', 'only http: and https:'],
    ['javascript:alert(1)', 'only http: and https:'],
    ['http://user:secret@example.com/', 'credentials'],
    ['https://token@example.com/', 'credentials'],
    ['not a url', 'not a valid URL'],
    ['', 'not a valid URL'],
    ['http://999.1.1.1/', 'not a valid URL'],
  ])('%s is refused (%s)', async (url, reason) => {
    const checking = checkTarget(url, strict())
    await expect(checking).rejects.toBeInstanceOf(TargetRefused)
    await expect(checking).rejects.toThrow(reason)
  })
})

describe('with private targets allowed', () => {
  const lenient = (resolve = noDns): TargetOptions => ({ allowPrivate: true, resolve })

  test('127.0.0.1 and ::1 are let through', async () => {
    expect((await checkTarget('http://127.0.0.1:3000/hook', lenient())).addresses).toEqual(['127.0.0.1'])
    expect((await checkTarget('http://[::1]:3000/hook', lenient())).addresses).toEqual(['::1'])
  })

  test('a name resolving to a private address is let through, localhost included', async () => {
    expect((await checkTarget('http://ci.internal/', lenient(async () => ['10.1.2.3']))).addresses).toEqual(['10.1.2.3'])
    expect((await checkTarget('http://localhost/', lenient(async () => ['127.0.0.1']))).addresses).toEqual(['127.0.0.1'])
  })

  test('the scheme and credential rules still hold', async () => {
    await expect(checkTarget('file:///etc/passwd', lenient())).rejects.toBeInstanceOf(TargetRefused)
    await expect(checkTarget('http://a:b@127.0.0.1/', lenient())).rejects.toBeInstanceOf(TargetRefused)
  })
})
