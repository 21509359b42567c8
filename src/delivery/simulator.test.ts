import { describe, expect, test } from 'bun:test'
import { classifyReply, parseReply } from './classify.ts'
import { simulate } from './simulator.ts'

const outcomeOf = (recipient: string, attempt = 1) => {
  const simulated = simulate(recipient, attempt)
  return simulated.kind === 'reply' ? classifyReply(parseReply(simulated.code, simulated.response)) : simulated
}

describe('the sandbox simulator', () => {
  test('a bounce... address hard-bounces as an unknown user does', () => {
    expect(outcomeOf('bounce@example.net')).toEqual({ kind: 'bounced', category: 'recipient', hard: true })
    expect(outcomeOf('Bounce+1@example.net')).toEqual({ kind: 'bounced', category: 'recipient', hard: true })
  })

  test('a defer... address is deferred at its first attempt and delivered at the next', () => {
    expect(outcomeOf('defer@example.net', 1)).toEqual({ kind: 'deferred', category: 'temporary' })
    expect(outcomeOf('defer@example.net', 2)).toEqual({ kind: 'delivered' })
  })

  test('a complaint... address is delivered and marked for a complaint', () => {
    expect(outcomeOf('complaint@example.net')).toEqual({ kind: 'delivered' })
    expect(simulate('complaint-7@example.net', 1)).toMatchObject({ kind: 'reply', code: 250, complaint: true })
  })

  test('a suppressed... address is refused as suppressed; anything else is delivered', () => {
    expect(simulate('suppressed@example.net', 1)).toEqual({ kind: 'suppressed' })
    expect(outcomeOf('jane@example.net')).toEqual({ kind: 'delivered' })
    expect(outcomeOf('bounce@bounce.example')).toEqual({ kind: 'bounced', category: 'recipient', hard: true })
    expect(outcomeOf('ada.bounce@example.net')).toEqual({ kind: 'delivered' })
  })
})
