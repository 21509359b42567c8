import { describe, expect, test } from 'bun:test'
import { blocklistInfo, blocklistName, readListing, reverseName } from './blocklists.ts'

describe('blocklist and reverse names', () => {
  test('IPv4: the octets reversed, under the zone', () => {
    expect(blocklistName('192.0.2.99', 'zen.spamhaus.org')).toBe('99.2.0.192.zen.spamhaus.org')
    expect(reverseName('192.0.2.99')).toBe('99.2.0.192.in-addr.arpa')
  })

  test('IPv6: the 32 nibbles reversed, however the address is written', () => {
    const name = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2'
    expect(blocklistName('2001:db8::1', 'zen.spamhaus.org')).toBe(`${name}.zen.spamhaus.org`)
    expect(blocklistName('2001:0DB8:0:0:0:0:0:0001', 'zen.spamhaus.org')).toBe(`${name}.zen.spamhaus.org`)
    expect(reverseName('2001:db8::1')).toBe(`${name}.ip6.arpa`)
  })

  test('an IPv6 address is not asked of a list that holds IPv4 only, nor of one Mailstead does not know', () => {
    expect(blocklistName('2001:db8::1', 'bl.spamcop.net')).toBeUndefined()
    expect(blocklistName('2001:db8::1', 'b.barracudacentral.org')).toBeUndefined()
    expect(blocklistName('2001:db8::1', 'dnsbl.example.net')).toBeUndefined()
    expect(blocklistName('192.0.2.1', 'dnsbl.example.net')).toBe('1.2.0.192.dnsbl.example.net')
  })
})

describe('what a blocklist answer means', () => {
  test.each([
    ['127.0.0.2', 'SBL: a known spam source or spam operation (127.0.0.2)'],
    ['127.0.0.3', 'SBL CSS: a source of snowshoe spam (127.0.0.3)'],
    ['127.0.0.4', 'XBL: an exploited or infected machine (a bot, an open proxy, a hacked server) (127.0.0.4)'],
    ['127.0.0.7', 'XBL: an exploited or infected machine (a bot, an open proxy, a hacked server) (127.0.0.7)'],
    ['127.0.0.9', 'DROP: a hijacked or criminal network (127.0.0.9)'],
    ['127.0.0.10', 'PBL: an end-user range, set by its ISP, that should not send mail directly (127.0.0.10)'],
    ['127.0.0.11', 'PBL: an end-user range, found by Spamhaus, that should not send mail directly (127.0.0.11)'],
  ])('Spamhaus ZEN %s is %s', (code, reason) => {
    expect(readListing('zen.spamhaus.org', [code])).toEqual({ kind: 'listed', reasons: [reason] })
  })

  test('several ZEN codes are each decoded once', () => {
    expect(readListing('zen.spamhaus.org', ['127.0.0.4', '127.0.0.10', '127.0.0.4'])).toEqual({
      kind: 'listed',
      reasons: [
        'XBL: an exploited or infected machine (a bot, an open proxy, a hacked server) (127.0.0.4)',
        'PBL: an end-user range, set by its ISP, that should not send mail directly (127.0.0.10)',
      ],
    })
  })

  test('127.255.255.x is a refused query, with its reason when known: not a listing', () => {
    expect(readListing('zen.spamhaus.org', ['127.255.255.254'])).toEqual({
      kind: 'refused',
      reason: '127.255.255.254: queries through public or open resolvers are refused',
    })
    expect(readListing('zen.spamhaus.org', ['127.255.255.255'])).toEqual({ kind: 'refused', reason: '127.255.255.255: too many queries from this resolver' })
    expect(readListing('zen.spamhaus.org', ['127.255.255.252']).kind).toBe('refused')
    expect(readListing('bl.spamcop.net', ['127.255.255.1'])).toEqual({ kind: 'refused', reason: '127.255.255.1: the list refused the query' })
  })

  test('Barracuda and SpamCop list with 127.0.0.2; unknown codes and lists are shown raw', () => {
    expect(readListing('b.barracudacentral.org', ['127.0.0.2'])).toEqual({ kind: 'listed', reasons: ['listed on the Barracuda Reputation Block List (127.0.0.2)'] })
    expect(readListing('bl.spamcop.net', ['127.0.0.2'])).toEqual({ kind: 'listed', reasons: ['reported as a source of spam by SpamCop users (127.0.0.2)'] })
    expect(readListing('zen.spamhaus.org', ['127.0.0.42'])).toEqual({ kind: 'listed', reasons: ['code 127.0.0.42'] })
    expect(readListing('dnsbl.example.net', ['127.0.0.5'])).toEqual({ kind: 'listed', reasons: ['code 127.0.0.5'] })
  })

  test('answers that are no listing code (127.0.0.1, outside 127/8) are neither listed nor clean', () => {
    expect(readListing('zen.spamhaus.org', ['127.0.0.1'])).toEqual({ kind: 'odd', codes: ['127.0.0.1'] })
    expect(readListing('dnsbl.example.net', ['192.0.2.1'])).toEqual({ kind: 'odd', codes: ['192.0.2.1'] })
  })

  test('a list Mailstead does not know is named by its zone and points to its website', () => {
    expect(blocklistInfo('dnsbl.example.net')).toMatchObject({ label: 'dnsbl.example.net', ipv6: false })
    expect(blocklistInfo('dnsbl.example.net').removal).toContain('dnsbl.example.net')
  })
})
