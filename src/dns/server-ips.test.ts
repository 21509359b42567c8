import { describe, expect, test } from 'bun:test'
import type { NetworkInterfaceInfo } from 'node:os'
import { serverIps } from './server-ips.ts'

const entry = (address: string, internal = false) => ({ address, internal, family: address.includes(':') ? 'IPv6' : 'IPv4' }) as NetworkInterfaceInfo

describe("the server's sending addresses", () => {
  test('are the configured ones when given', () => {
    expect(serverIps(['203.0.113.9'], { eth0: [entry('198.51.100.1')] })).toEqual(['203.0.113.9'])
  })

  test("are otherwise the public addresses of the machine's interfaces, each once", () => {
    const interfaces = {
      lo: [entry('127.0.0.1', true), entry('::1', true)],
      eth0: [entry('10.0.0.5'), entry('93.184.215.14'), entry('fe80::1'), entry('2606:4700::6810:84e5')],
      eth1: [entry('93.184.215.14')],
    }
    expect(serverIps(null, interfaces)).toEqual(['93.184.215.14', '2606:4700::6810:84e5'])
  })
})
