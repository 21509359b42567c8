import { describe, expect, test } from 'bun:test'
import { contactEventWords } from './contact-timeline-words.ts'

describe("a contact's events in words", () => {
  test('an edit says each change from and to', () => {
    const words = contactEventWords('contact.updated', { data: { plan: { from: 'free', to: 'pro' }, seats: { from: null, to: 3 } }, subscribed: { from: true, to: false } })
    expect(words).toEqual({
      title: 'Contact changed',
      kind: 'change',
      lines: [
        { label: 'plan', text: '"free" → "pro"' },
        { label: 'seats', text: '(none) → 3' },
        { label: 'Subscribed', text: 'yes → no' },
      ],
    })
  })

  test('a segment entered or left names the segment', () => {
    expect(contactEventWords('segment.abc.entered', { segmentName: 'VIP' })).toMatchObject({ title: 'Entered a segment', segmentId: 'abc' })
    expect(contactEventWords('segment.abc.exited', null)).toMatchObject({ title: 'Left a segment', segmentId: 'abc' })
  })

  test('an event the project tracked keeps its name, its data in lines', () => {
    expect(contactEventWords('signed-up', { source: 'ad' })).toEqual({ title: 'signed-up', kind: 'tracked', lines: [{ label: 'source', text: 'ad' }] })
  })
})
