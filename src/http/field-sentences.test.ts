import { describe, expect, test } from 'bun:test'
import { t, type TSchema } from 'elysia'
import { Value } from '@sinclair/typebox/value'
import { fieldErrors } from './error-body.ts'
import { asSentence, fieldLabel } from './field-sentences.ts'

/** The field errors a schema's validator finds in `value`, as the error body gives them. */
const errorsOf = (schema: TSchema, value: unknown) =>
  fieldErrors('body', [...Value.Errors(schema, value)].map((e) => ({ path: e.path, message: e.message, type: e.type, schema: e.schema as never })))

describe('a field named in words', () => {
  test.each([
    ['name', 'name'],
    ['defaultSender', 'default sender'],
    ['url', 'URL'],
    ['webhookUrl', 'webhook URL'],
    ['to.2', 'item 3 of to'],
    ['data.plan', 'plan (in data)'],
    ['steps.0.config', 'config (in steps, item 1)'],
    ['body', 'the request body'],
    ['constructor', 'constructor'],
  ])('%s is "%s"', (field, words) => {
    expect(fieldLabel(field)).toBe(words)
  })
})

describe('a fragment becomes a sentence about its field', () => {
  test('said of the field, capitalised, with a full stop', () => {
    expect(asSentence('sendRatePerSecond', 'must be a whole number from 1 to 10')).toBe('Send rate per second must be a whole number from 1 to 10.')
  })
  test('a sentence is kept as it is, with a full stop', () => {
    expect(asSentence('url', 'Enter a full URL, for example https://example.com/webhooks.')).toBe('Enter a full URL, for example https://example.com/webhooks.')
    expect(asSentence('email', 'This address bounced before')).toBe('This address bounced before.')
  })
  test('an empty message still says which field', () => {
    expect(asSentence('subject', ' ')).toBe('Subject is not valid.')
  })
})

describe("a schema's finding in words", () => {
  const cases: Array<[string, TSchema, unknown, string]> = [
    ['required', t.Object({ name: t.String() }), {}, 'Name is required.'],
    ['unknown field', t.Object({ name: t.String() }, { additionalProperties: false }), { name: 'a', color: 'red' }, 'Color is not a field this request takes.'],
    ['url', t.Object({ url: t.String({ format: 'uri' }) }), { url: '' }, 'Enter a full URL, for example https://example.com/webhooks.'],
    ['email', t.Object({ replyTo: t.String({ format: 'email' }) }), { replyTo: 'jane' }, 'Enter an email address for reply to, for example jane@example.com.'],
    ['uuid', t.Object({ id: t.String({ format: 'uuid' }) }), { id: '42' }, 'ID must be an id like 0b6f3c1e-4f6a-4c1d-9a55-5f1e6a2b7c3d.'],
    ['date-time', t.Object({ scheduledAt: t.String({ format: 'date-time' }) }), { scheduledAt: 'tomorrow' }, 'Enter scheduled time as a date and time, for example 2026-05-01T09:30:00Z.'],
    ['minLength 1', t.Object({ name: t.String({ minLength: 1 }) }), { name: '' }, 'Name must not be empty.'],
    ['minLength', t.Object({ password: t.String({ minLength: 10 }) }), { password: 'short' }, 'Password must be at least 10 characters.'],
    ['maxLength', t.Object({ subject: t.String({ maxLength: 3 }) }), { subject: 'long' }, 'Subject must be at most 3 characters.'],
    ['minimum', t.Object({ limit: t.Number({ minimum: 1 }) }), { limit: 0 }, 'Limit must be at least 1.'],
    ['maximum', t.Object({ limit: t.Number({ maximum: 100 }) }), { limit: 101 }, 'Limit must be at most 100.'],
    ['enum', t.Object({ type: t.UnionEnum(['secret', 'public']) }), { type: 'private' }, 'Choose one of these for type: secret, public.'],
    ['pattern', t.Object({ code: t.String({ pattern: '^[0-9]{6}$' }) }), { code: 'abc' }, 'Code is not in the expected form.'],
    ['type', t.Object({ enabled: t.Boolean() }), { enabled: 'yes' }, 'Enabled must be true or false.'],
    ['list', t.Object({ events: t.Array(t.String(), { minItems: 1 }) }), { events: [] }, 'Events must have at least 1 item.'],
    ['custom', t.Object({ rate: t.Number({ error: 'must be a whole number from 1 to 10' }) }), { rate: 'x' }, 'Rate must be a whole number from 1 to 10.'],
  ]
  test.each(cases)('%s', (_, schema, value, sentence) => {
    expect(errorsOf(schema, value)[0]!.message).toBe(sentence)
  })

  test('the field path and the code stay as they were', () => {
    expect(errorsOf(t.Object({ type: t.UnionEnum(['a', 'b']) }), { type: 'c' })[0]).toEqual({ field: 'type', message: 'Choose one of these for type: a, b.', code: 'invalid_enum_value' })
    expect(errorsOf(t.Object({ name: t.String() }), {})[0]).toEqual({ field: 'name', message: 'Name is required.', code: 'required' })
  })
})

describe('a choice of types', () => {
  test('names each choice, with its range', () => {
    const schema = t.Object({ sendRatePerSecond: t.Union([t.Number({ minimum: 1, maximum: 1000, multipleOf: 1 }), t.Null()]) })
    expect(errorsOf(schema, { sendRatePerSecond: 0 })[0]!.message).toBe('Send rate per second must be a whole number from 1 to 1000, or null.')
  })
  test('a time field is said as a time', () => {
    expect(fieldLabel('scheduledAt')).toBe('scheduled time')
  })
})

test("a rule's list of what it takes reads as a choice", () => {
  expect(asSentence('region', 'must be one of us-east-1, eu-west-1')).toBe('Choose one of these for region: us-east-1, eu-west-1.')
})

test('a sentence begun in lower case is capitalised, not said of the field', () => {
  expect(asSentence('enabled', 'a workflow without steps cannot be enabled; add steps first')).toBe('A workflow without steps cannot be enabled; add steps first.')
})
