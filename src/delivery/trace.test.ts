import { describe, expect, test } from 'bun:test'
import { describeFailure, endpoint, Trace } from './trace.ts'

describe('the trace of an attempt', () => {
  test('reads as the hosts and addresses were tried, each host named once in a row', () => {
    const trace = new Trace()
    trace.host('mx1.example.com', 'mx1.example.com AAAA REFUSED')
    trace.address('mx1.example.com', '192.0.2.5', 25, 'connection refused')
    trace.address('mx2.example.com', '192.0.2.6', 25, '421 4.7.0 try later')
    trace.address('mx2.example.com', '2001:db8::6', 25, 'timed out')
    expect(String(trace)).toBe('mx1.example.com AAAA REFUSED; 192.0.2.5:25 connection refused; mx2.example.com 192.0.2.6:25 421 4.7.0 try later; [2001:db8::6]:25 timed out')
  })

  test('is empty until something is noted', () => {
    expect(new Trace().empty).toBe(true)
  })

  test('writes IPv6 endpoints in brackets', () => {
    expect(endpoint('2001:db8::1', 25)).toBe('[2001:db8::1]:25')
    expect(endpoint('192.0.2.1', 2525)).toBe('192.0.2.1:2525')
  })
})

describe('a failure in words', () => {
  test.each([
    [{ code: 'ESOCKET', message: 'connect ECONNREFUSED 192.0.2.5:25' }, 'connection refused'],
    [{ code: 'ESOCKET', message: 'connect ENETUNREACH 2001:db8::5:25' }, 'network unreachable'],
    [{ code: 'EPROTOCOL', message: 'Invalid greeting. response=421 4.7.0 try later', response: '421 4.7.0 try later' }, '421 4.7.0 try later'],
    [{ code: 'ETIMEDOUT', message: 'Greeting never received' }, 'timed out'],
    [{ code: 'ECONNECTION', message: 'the connection was closed' }, 'the connection was closed'],
    [{ code: 'ETLS', message: 'Error upgrading connection with STARTTLS', response: '500 Error: command not recognized' }, 'STARTTLS failed: 500 Error: command not recognized'],
    [{ code: 'ETLS', message: 'Error initiating TLS - self-signed certificate' }, 'STARTTLS failed: Error initiating TLS - self-signed certificate'],
  ])('%o reads "%s"', (error, words) => {
    expect(describeFailure(error)).toBe(words)
  })
})
