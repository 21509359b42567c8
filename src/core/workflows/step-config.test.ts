import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { checkStepConfig } from './step-config.ts'
import type { StepType } from './workflow.ts'

function refusal(type: StepType, config: unknown): { field: string; message: string } {
  try {
    checkStepConfig(type, config, 'config')
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).status).toBe(422)
    return (error as AppError).details.errors![0]!
  }
  throw new Error('accepted')
}

const condition = { logic: 'AND', groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }] }

describe('checkStepConfig accepts each type of step', () => {
  test.each([
    ['SEND_EMAIL', { templateId: 't1', from: 'news@example.com' }, { templateId: 't1', from: 'news@example.com' }],
    ['SEND_EMAIL', { subject: 'Hi {{data.name}}', body: '<p>Hi</p>', from: ' Jane <jane@example.com> ' }, { subject: 'Hi {{data.name}}', body: '<p>Hi</p>', from: 'Jane <jane@example.com>' }],
    ['SEND_EMAIL', { templateId: 't1', from: '"Doe, Jane" <jane@example.com>' }, { templateId: 't1', from: '"Doe, Jane" <jane@example.com>' }],
    ['DELAY', { amount: 52, unit: 'weeks' }, { amount: 52, unit: 'weeks' }],
    ['DELAY', { amount: 365, unit: 'days' }, { amount: 365, unit: 'days' }],
    ['WAIT_FOR_EVENT', { eventName: 'purchase', timeoutSeconds: 1 }, { eventName: 'purchase', timeoutSeconds: 1 }],
    ['WAIT_FOR_EVENT', { eventName: 'segment.abc.exit', timeoutSeconds: 31_536_000 }, { eventName: 'segment.abc.exit', timeoutSeconds: 31_536_000 }],
    ['CONDITION', { condition }, { condition }],
    ['UPDATE_CONTACT', { data: { plan: 'pro', old: null } }, { data: { plan: 'pro', old: null } }],
    ['UPDATE_CONTACT', { subscribed: false }, { subscribed: false }],
    ['WEBHOOK', { url: 'https://hooks.example.com/in?x={{email}}' }, { url: 'https://hooks.example.com/in?x={{email}}', method: 'POST' }],
    ['WEBHOOK', { url: 'http://example.com', method: 'PUT', headers: { Authorization: 'Bearer x' }, body: { a: [1] } }, { url: 'http://example.com', method: 'PUT', headers: { Authorization: 'Bearer x' }, body: { a: [1] } }],
    ['EXIT', undefined, {}],
    ['EXIT', {}, {}],
  ] as Array<[StepType, unknown, unknown]>)('%s %j', (type, config, expected) => {
    expect(checkStepConfig(type, config, 'config')).toEqual(expected as never)
  })
})

describe('checkStepConfig refuses a bad config with a 422 naming the path', () => {
  test.each([
    ['SEND_EMAIL', undefined, 'config', 'must be an object'],
    ['SEND_EMAIL', { templateId: 't', from: 'a@example.com', color: 1 }, 'config.color', 'is not part of'],
    ['SEND_EMAIL', { templateId: 't' }, 'config.from', 'is required'],
    ['SEND_EMAIL', { templateId: 't', from: 'not an address' }, 'config.from', 'must be `address` or `Name <address>`'],
    ['SEND_EMAIL', { templateId: 't', from: 'Jane <jane@>' }, 'config.from', 'must be `address`'],
    ['SEND_EMAIL', { templateId: 't', from: 'Jane\n<jane@example.com>' }, 'config.from', 'control characters'],
    ['SEND_EMAIL', { templateId: 't', from: `${'n'.repeat(201)} <jane@example.com>` }, 'config.from', 'at most 200'],
    ['SEND_EMAIL', { from: 'a@example.com' }, 'config', 'give a templateId, or a subject and body'],
    ['SEND_EMAIL', { templateId: 't', subject: 'x', from: 'a@example.com' }, 'config.subject', 'not both'],
    ['SEND_EMAIL', { subject: 'x', from: 'a@example.com' }, 'config.body', 'HTML body'],
    ['SEND_EMAIL', { body: 'x', from: 'a@example.com' }, 'config.subject', 'one line'],
    ['SEND_EMAIL', { subject: 'a\nb', body: 'x', from: 'a@example.com' }, 'config.subject', 'one line'],
    ['SEND_EMAIL', { subject: 'a\u0000b', body: 'x', from: 'a@example.com' }, 'config.subject', 'one line'],
    ['SEND_EMAIL', { subject: 'a\rb', body: 'x', from: 'a@example.com' }, 'config.subject', 'one line'],
    ['SEND_EMAIL', { subject: 'a\u2028b', body: 'x', from: 'a@example.com' }, 'config.subject', 'one line'],
    ['SEND_EMAIL', { subject: 'a\ud800b', body: 'x', from: 'a@example.com' }, 'config.subject', 'well-formed'],
    ['DELAY', { amount: 1 }, 'config.unit', 'minutes, hours, days, weeks'],
    ['DELAY', { amount: 1, unit: 'months' }, 'config.unit', 'minutes, hours, days, weeks'],
    ['DELAY', { amount: 1.5, unit: 'days' }, 'config.amount', 'whole number'],
    ['DELAY', { amount: -1, unit: 'days' }, 'config.amount', 'whole number'],
    ['DELAY', { amount: '1', unit: 'days' }, 'config.amount', 'whole number'],
    ['DELAY', { amount: 53, unit: 'weeks' }, 'config.amount', 'at most a year'],
    ['DELAY', { amount: 525_601, unit: 'minutes' }, 'config.amount', 'at most a year'],
    ['WAIT_FOR_EVENT', { eventName: 'x', timeoutSeconds: 0 }, 'config.timeoutSeconds', 'from 1 to 31536000'],
    ['WAIT_FOR_EVENT', { eventName: 'x', timeoutSeconds: 31_536_001 }, 'config.timeoutSeconds', 'from 1 to 31536000'],
    ['WAIT_FOR_EVENT', { eventName: '', timeoutSeconds: 60 }, 'config.eventName', '1 to 100'],
    ['WAIT_FOR_EVENT', { eventName: 'email.sent', timeoutSeconds: 60 }, 'config.eventName', 'email events are'],
    ['CONDITION', {}, 'config.condition', 'must be an object'],
    ['CONDITION', { condition: { logic: 'AND', groups: [{ filters: [{ field: 'nope', operator: 'equals', value: 1 }] }] } }, 'config.condition.groups[0].filters[0].field', 'must be email'],
    ['UPDATE_CONTACT', {}, 'config', 'give data, subscribed or both'],
    ['UPDATE_CONTACT', { subscribed: 'yes' }, 'config.subscribed', 'true or false'],
    ['UPDATE_CONTACT', { data: [1] }, 'config.data', 'must be an object'],
    ['UPDATE_CONTACT', { data: { ['k'.repeat(201)]: 1 } }, `config.data.${'k'.repeat(201)}`, 'keys must be'],
    ['WEBHOOK', {}, 'config.url', 'http:// or https://'],
    ['WEBHOOK', { url: 'ftp://example.com/x' }, 'config.url', 'http:// or https://'],
    ['WEBHOOK', { url: 'not a url' }, 'config.url', 'http:// or https://'],
    ['WEBHOOK', { url: 'https://example.com', method: 'HEAD' }, 'config.method', 'GET, POST, PUT, PATCH, DELETE'],
    ['WEBHOOK', { url: 'https://example.com', method: 'GET', body: {} }, 'config.body', 'a GET request has no body'],
    ['WEBHOOK', { url: 'https://example.com', headers: { 'bad name': 'x' } }, 'config.headers.bad name', 'not a valid header name'],
    ['WEBHOOK', { url: 'https://example.com', headers: { 'X-A': 'a\r\nb' } }, 'config.headers.X-A', 'one line'],
    ['WEBHOOK', { url: 'https://example.com', headers: { 'X-A': 'news 📰' } }, 'config.headers.X-A', 'Latin-1'],
    ['WEBHOOK', { url: 'https://example.com', headers: { 'X-A': 'a\u0001b' } }, 'config.headers.X-A', 'Latin-1'],
    ['WEBHOOK', { url: 'https://example.com', headers: { Host: 'other' } }, 'config.headers.Host', 'set by Mailstead'],
    ['WEBHOOK', { url: 'https://example.com', headers: { 'X-Mailstead-Signature': 'x' } }, 'config.headers.X-Mailstead-Signature', 'set by Mailstead'],
    ['WEBHOOK', { url: 'https://example.com', body: 'x'.repeat(70_000) }, 'config.body', '64 KiB'],
    ['EXIT', { reason: 'done' }, 'config.reason', 'is not part of'],
  ].map(([type, config, field, message]) => [type, field, message, config]) as Array<[StepType, string, string, unknown]>)('%s: %s %s', (type, field, message, config) => {
    const found = refusal(type, config)
    expect(found.field).toBe(field)
    expect(found.message).toContain(message)
  })
})
