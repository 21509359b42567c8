import { describe, expect, test } from 'bun:test'
import type { ContactRow } from '../../db/schema.ts'
import { campaignEventData, contactChangeTypes, contactEventData, domainEventData, emailEventData, payloadOf, type EmailFacts } from './payload.ts'

const AT = Date.parse('2026-11-01T12:00:00Z')

const email: EmailFacts = {
  id: 'e1',
  from_address: 'Team <team@sender.example.com>',
  recipients: JSON.stringify({ to: ['Jane <jane@example.net>'], cc: ['boss@example.net'], bcc: [], replyTo: [] }),
  subject: 'Hello',
  contact_id: 'c1',
  campaign_id: null,
}

const contact: ContactRow = {
  id: 'c1',
  project_id: 1,
  email: 'jane@example.net',
  email_key: 'jane@example.net',
  subscribed: 1,
  data: '{"plan":"pro"}',
  created_at: AT,
  updated_at: AT,
}

describe('the payload', () => {
  test('is {id, type, createdAt, data} with the time in ISO 8601 UTC', () => {
    expect(JSON.parse(payloadOf('ev1', 'email.sent', AT, { a: 1 }))).toEqual({ id: 'ev1', type: 'email.sent', createdAt: '2026-11-01T12:00:00.000Z', data: { a: 1 } })
  })
})

describe('email event data', () => {
  test('names the email, its sender, its to addresses, its contact and campaign', () => {
    expect(emailEventData({ ...email, campaign_id: 'k1' }, 'QUEUED', null, AT)).toEqual({
      id: 'e1',
      occurredAt: '2026-11-01T12:00:00.000Z',
      emailId: 'e1',
      status: 'QUEUED',
      from: 'Team <team@sender.example.com>',
      to: ['Jane <jane@example.net>'],
      subject: 'Hello',
      recipient: null,
      contactId: 'c1',
      campaignId: 'k1',
      details: {},
    })
  })

  test('lifts the recipient the event is about out of its details, and keeps the rest there', () => {
    const data = emailEventData(email, 'BOUNCED', { recipient: 'jane@example.net', smtpCode: 550, enhancedCode: '5.1.1', hard: true }, AT)
    expect(data.recipient).toBe('jane@example.net')
    expect(data.details).toEqual({ smtpCode: 550, enhancedCode: '5.1.1', hard: true })
  })

  test('of a click carries the link and who followed it', () => {
    const data = emailEventData(email, 'CLICKED', { url: 'https://example.com/x', userAgent: 'Mail/1', ip: '203.0.113.9' }, AT)
    expect(data.details).toEqual({ url: 'https://example.com/x', userAgent: 'Mail/1', ip: '203.0.113.9' })
    expect(data.recipient).toBeNull()
  })
})

describe("useSend's fields in email event data", () => {
  const fields = (status: Parameters<typeof emailEventData>[1], details: Record<string, unknown>) => emailEventData(email, status, details, AT)

  test('a hard bounce of an unknown user is Permanent NoEmail, with the reply as its message', () => {
    expect(fields('BOUNCED', { recipient: 'jane@example.net', category: 'recipient', hard: true, response: '550 5.1.1 no such user' }).bounce).toEqual({
      type: 'Permanent',
      subType: 'NoEmail',
      message: '550 5.1.1 no such user',
    })
  })

  test('a soft bounce of a full mailbox is Transient MailboxFull; a report without a category is General', () => {
    expect(fields('BOUNCED', { category: 'mailbox-full', hard: false, response: '552 full' }).bounce).toMatchObject({ type: 'Transient', subType: 'MailboxFull' })
    expect(fields('BOUNCED', { diagnostic: 'smtp; 550 blocked' }).bounce).toEqual({ type: 'Undetermined', subType: 'General', message: 'smtp; 550 blocked' })
  })

  test('a suppression names the list reason; a failure its reason', () => {
    expect(fields('SUPPRESSED', { recipient: 'jane@example.net', reason: 'complaint' }).suppression).toEqual({ type: 'Complaint', reason: 'complaint' })
    expect(fields('FAILED', { reason: 'The sending domain was removed' }).failed).toEqual({ reason: 'The sending domain was removed' })
  })

  test('an open and a click carry their time, the link and who it was', () => {
    expect(fields('OPENED', { userAgent: 'Mail/1', ip: '203.0.113.9' }).open).toEqual({ timestamp: '2026-11-01T12:00:00.000Z', userAgent: 'Mail/1', ip: '203.0.113.9' })
    expect(fields('CLICKED', { url: 'https://example.com/x' }).click).toEqual({ timestamp: '2026-11-01T12:00:00.000Z', url: 'https://example.com/x' })
  })
})

describe('a change to a contact', () => {
  test('that changed nothing but its time is no event', () => {
    expect(contactChangeTypes(contact, { ...contact, updated_at: AT + 1 })).toEqual([])
  })

  test('of its data or address is an update', () => {
    expect(contactChangeTypes(contact, { ...contact, data: '{"plan":"free"}' })).toEqual(['contact.updated'])
    expect(contactChangeTypes(contact, { ...contact, email: 'jane@example.org' })).toEqual(['contact.updated'])
  })

  test('that unsubscribes it is an update and an unsubscription', () => {
    expect(contactChangeTypes(contact, { ...contact, subscribed: 0 })).toEqual(['contact.updated', 'contact.unsubscribed'])
  })

  test('that subscribes it again is an update only', () => {
    expect(contactChangeTypes({ ...contact, subscribed: 0 }, contact)).toEqual(['contact.updated'])
  })
})

describe('contact, domain and campaign data', () => {
  test('a contact is shown as the API shows it; an unsubscription says how it came', () => {
    const shown = {
      id: 'c1',
      email: 'jane@example.net',
      subscribed: true,
      data: { plan: 'pro' },
      properties: { plan: 'pro' },
      firstName: null,
      lastName: null,
      createdAt: '2026-11-01T12:00:00.000Z',
      updatedAt: '2026-11-01T12:00:00.000Z',
    }
    expect(contactEventData(contact, 'contact.created')).toEqual(shown)
    expect(contactEventData({ ...contact, subscribed: 0 }, 'contact.unsubscribed', 'complaint')).toEqual({ ...shown, subscribed: false, source: 'complaint' })
  })

  test("a contact's first and last name are given apart from its properties, as useSend gives them", () => {
    const named = contactEventData({ ...contact, data: '{"firstName":"Jane","lastName":"Doe","plan":"pro"}' }, 'contact.updated')
    expect(named).toMatchObject({ firstName: 'Jane', lastName: 'Doe', properties: { plan: 'pro' }, data: { firstName: 'Jane', lastName: 'Doe', plan: 'pro' } })
  })

  test('a domain is its id, name, status, what is wrong with it, and the fields of useSend domain events', () => {
    const row = { id: 7, name: 'mail.example.com', status: 'FAILED' as const, error_message: 'Required records were still not right after 72 h', region: 'us-east-1', click_tracking: 1, open_tracking: 0, created_at: AT, updated_at: AT }
    expect(domainEventData(row)).toEqual({
      id: 7,
      name: 'mail.example.com',
      status: 'FAILED',
      error: 'Required records were still not right after 72 h',
      region: 'us-east-1',
      clickTracking: true,
      openTracking: false,
      subdomain: 'mail',
      createdAt: '2026-11-01T12:00:00.000Z',
      updatedAt: '2026-11-01T12:00:00.000Z',
    })
  })

  test('a sent campaign is its id, name, audience size and when it was handed in full', () => {
    expect(campaignEventData({ id: 'k1', name: 'Launch', total: 1200 }, AT)).toEqual({ id: 'k1', name: 'Launch', total: 1200, sentAt: '2026-11-01T12:00:00.000Z' })
  })
})
