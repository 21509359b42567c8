import { describe, expect, test } from 'bun:test'
import { hostRecordsWarning, unpublishableReason } from './host-records.ts'
import type { RecordKind } from './records.ts'

const KINDS: RecordKind[] = ['dkim', 'return-path-mx', 'spf', 'dmarc', 'dkim-ed25519']

describe('records that name this server', () => {
  test('on a public host name every record can be published, and the domain has no warning', () => {
    expect(KINDS.map((kind) => unpublishableReason({ kind }, 'mail.example.com'))).toEqual([undefined, undefined, undefined, undefined, undefined])
    expect(hostRecordsWarning('mail.example.com')).toBeUndefined()
  })

  test.each(['vm', 'mail.internal', 'box.local'])('on %s only the MX and SPF records cannot be, saying which setting to set', (host) => {
    const reasons = KINDS.map((kind) => unpublishableReason({ kind }, host))
    expect(reasons.map((reason) => reason !== undefined)).toEqual([false, true, true, false, false])
    expect(reasons[1]).toBe(`it would name "${host}", which is not a public DNS name; set MAILSTEAD_HOSTNAME (--hostname) to this server's name, then get the records again`)
    const warning = hostRecordsWarning(host)!
    expect(warning).toStartWith(`The return-path MX and SPF records cannot be published yet. MAILSTEAD_HOSTNAME is "${host}"`)
    expect(warning).toContain('--hostname')
  })
})
