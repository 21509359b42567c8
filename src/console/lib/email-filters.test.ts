import { describe, expect, test } from 'bun:test'
import { apiQueryOf, filterProblems, filtersFromForm, filtersFromSearch, hasFilters, isoOfLocalInput, localInputOf, searchOf, statusName, statusTone } from './email-filters.ts'

describe('filters in the query string', () => {
  test('read back what they were written as, in one order whatever the order given', () => {
    const filters = { to: '2026-11-30', status: 'DELIVERED' as const, recipient: 'jane@', from: '2026-11-01', domainId: '7', sender: 'shop', subject: 'Your order' }
    const search = searchOf(filters)
    expect(search).toBe('status=DELIVERED&recipient=jane%40&sender=shop&subject=Your+order&domainId=7&from=2026-11-01&to=2026-11-30')
    expect(filtersFromSearch(`?${search}`)).toEqual(filters)
    expect(filtersFromSearch(search)).toEqual(filters)
  })

  test('no filters: an empty query string', () => {
    expect(searchOf({})).toBe('')
    expect(filtersFromSearch('')).toEqual({})
    expect(hasFilters({})).toBe(false)
    expect(hasFilters({ status: 'SENT' })).toBe(true)
  })

  test('what the API would refuse, or that means nothing, is left out', () => {
    expect(filtersFromSearch('status=delivered&domainId=0x1&from=2026-02-30&to=yesterday&recipient=%20%20&page=3&evil=1')).toEqual({})
    expect(filtersFromSearch('domainId=-1&sender=')).toEqual({})
  })

  test('texts are trimmed and cut to the 254 characters the API takes', () => {
    expect(filtersFromSearch(`subject=${'x'.repeat(300)}`).subject).toHaveLength(254)
    expect(filtersFromSearch('recipient=%20jane%20').recipient).toBe('jane')
  })

  test("a form's blank fields are left out", () => {
    const form = new FormData()
    form.set('status', '')
    form.set('recipient', 'a@example.net')
    form.set('subject', ' ')
    form.set('from', '2026-11-01')
    expect(filtersFromForm(form)).toEqual({ recipient: 'a@example.net', from: '2026-11-01' })
  })
})

describe('what the API is asked', () => {
  test("days are the reader's, from midnight to the day's last millisecond", () => {
    const query = apiQueryOf({ from: '2026-11-01', to: '2026-11-02', status: 'BOUNCED', domainId: '3' })
    expect(query.startDate).toBe(new Date(2026, 10, 1, 0, 0, 0, 0).toISOString())
    expect(query.endDate).toBe(new Date(2026, 10, 2, 23, 59, 59, 999).toISOString())
    expect(query.status).toBe('BOUNCED')
    expect(query.domainId).toBe('3')
    expect(apiQueryOf({})).toEqual({ status: undefined, recipient: undefined, sender: undefined, subject: undefined, domainId: undefined, startDate: undefined, endDate: undefined })
  })

  test('a range that ends before it starts is named before asking', () => {
    expect(filterProblems({ from: '2026-11-02', to: '2026-11-01' })).toEqual({ to: 'must not be before the first day' })
    expect(filterProblems({ from: '2026-11-01', to: '2026-11-01' })).toEqual({})
    expect(filterProblems({ to: '2026-11-01' })).toEqual({})
  })
})

describe('statuses', () => {
  test('read as words, with a tone', () => {
    expect(statusName('DELIVERY_DELAYED')).toBe('Delivery delayed')
    expect(statusName('DELIVERED')).toBe('Delivered')
    expect(statusTone('DELIVERED')).toBe('ok')
    expect(statusTone('BOUNCED')).toBe('bad')
    expect(statusTone('SCHEDULED')).toBe('wait')
    expect(statusTone('CANCELLED')).toBe('plain')
  })
})

describe('the reschedule input', () => {
  test("a datetime-local value is the reader's zone, both ways", () => {
    const iso = new Date(2026, 10, 24, 7, 5).toISOString()
    expect(localInputOf(iso)).toBe('2026-11-24T07:05')
    expect(isoOfLocalInput('2026-11-24T07:05')).toBe(iso)
    expect(isoOfLocalInput('2026-11-24T07:05:30')).toBe(new Date(2026, 10, 24, 7, 5, 30).toISOString())
    expect(isoOfLocalInput('')).toBeUndefined()
    expect(isoOfLocalInput('tomorrow')).toBeUndefined()
    expect(localInputOf('nope')).toBe('')
  })
})
