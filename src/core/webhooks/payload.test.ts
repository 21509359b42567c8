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
    expect(emailEventData({ ...email, campaign_id: 'k1' }, 'QUEUED', null)).toEqual({
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
    const data = emailEventData(email, 'BOUNCED', { recipient: 'jane@example.net', smtpCode: 550, enhancedCode: '5.1.1', hard: true })
    expect(data.recipient).toBe('jane@example.net')
    expect(data.details).toEqual({ smtpCode: 550, enhancedCode: '5.1.1', hard: true })
  })

  test('of a click carries the link and who followed it', () => {
    const data = emailEventData(email, 'CLICKED', { url: 'https://example.com/x', userAgent: 'Mail/1', ip: '203.0.113.9' })
    expect(data.details).toEqual({ url: 'https://example.com/x', userAgent: 'Mail/1', ip: '203.0.113.9' })
    expect(data.recipient).toBeNull()
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
    const shown = { id: 'c1', email: 'jane@example.net', subscribed: true, data: { plan: 'pro' }, createdAt: '2026-11-01T12:00:00.000Z', updatedAt: '2026-11-01T12:00:00.000Z' }
    expect(contactEventData(contact, 'contact.created')).toEqual(shown)
    expect(contactEventData({ ...contact, subscribed: 0 }, 'contact.unsubscribed', 'complaint')).toEqual({ ...shown, subscribed: false, source: 'complaint' })
  })

  test('a domain is its id, name, status and what is wrong with it', () => {
    expect(domainEventData({ id: 7, name: 'example.com', status: 'FAILED', error_message: 'Required records were still not right after 72 h' })).toEqual({
      id: 7,
      name: 'example.com',
      status: 'FAILED',
      error: 'Required records were still not right after 72 h',
    })
  })

  test('a sent campaign is its id, name, audience size and when it was handed in full', () => {
    expect(campaignEventData({ id: 'k1', name: 'Launch', total: 1200 }, AT)).toEqual({ id: 'k1', name: 'Launch', total: 1200, sentAt: '2026-11-01T12:00:00.000Z' })
  })
})
