import { describe, expect, test } from 'bun:test'
import { SITE_RULES } from './rules.ts'
import { domainSite, siteOf } from './site-of.ts'

describe('the site of a set of MX hosts', () => {
  test.each([
    [['gmail-smtp-in.l.google.com', 'alt1.gmail-smtp-in.l.google.com'], 'gmail'],
    [['aspmx.l.google.com', 'alt1.aspmx.l.google.com', 'aspmx2.googlemail.com'], 'gmail'],
    [['smtp.google.com'], 'gmail'],
    [['example-com.mail.protection.outlook.com'], 'microsoft-365'],
    [['outlook-com.olc.protection.outlook.com'], 'microsoft'],
    [['mta5.am0.yahoodns.net', 'mta6.am0.yahoodns.net'], 'yahoo'],
    [['mx01.mail.icloud.com'], 'apple'],
    [['mx00.gmx.net', 'mx01.gmx.net'], 'gmx-webde'],
    [['mx-ha02.web.de'], 'gmx-webde'],
    [['mx.yandex.net'], 'yandex'],
    [['mxs.mail.ru'], 'mailru'],
    [['mx1a1.comcast.net'], 'comcast'],
    [['smtp-in.orange.fr'], 'orange'],
  ])('%o is the %s site, whichever recipient domain points there', (hosts, name) => {
    expect(siteOf(hosts, SITE_RULES).name).toBe(name)
  })

  test('any other set of hosts is a site of its own, named by its hosts in order, whatever their order in DNS', () => {
    expect(siteOf(['MX2.Example.com.', 'mx1.example.com'], SITE_RULES)).toEqual({ name: 'mx1.example.com,mx2.example.com', mxHosts: ['mx2.example.com', 'mx1.example.com'] })
    expect(siteOf(['mx1.example.com', 'mx2.example.com'], SITE_RULES).name).toBe(siteOf(['mx2.example.com', 'mx1.example.com'], SITE_RULES).name)
  })

  test('a host that only resembles a provider is not it', () => {
    expect(siteOf(['google.com.evil.example'], SITE_RULES).name).toBe('google.com.evil.example')
    expect(siteOf(['notgoogle.com'], SITE_RULES).rule).toBeUndefined()
  })

  test('mail without an MX host set is a site of its domain', () => {
    expect(domainSite('nowhere.example').name).toBe('domain:nowhere.example')
  })
})
