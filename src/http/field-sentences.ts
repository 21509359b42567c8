import { ValueErrorType } from '@sinclair/typebox/errors'

/*
 * A field's problem as a sentence a person reads beside the field ("Enter a full URL, for example
 * https://example.com/webhooks."), never a validator's fragment ("Expected string", `"" is not a
 * valid URL`). The field path and the code stay in the error body for programs; these are for people.
 */

/** Words that are written in capitals when they stand alone in a field's name. */
const CAPITALS = new Set(['url', 'id', 'ids', 'ip', 'ips', 'dkim', 'spf', 'dmarc', 'mx', 'smtp', 'html', 'csv', 'json', 'dns', 'tls', 'api', 'totp', 'utm'])

/** `sendRatePerSecond` as "send rate per second", `replyTo` as "reply to", `url` as "URL". */
function words(name: string): string {
  return name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => (CAPITALS.has(word) ? word.toUpperCase().replace(/S$/, 's') : word))
    .join(' ')
    // scheduledAt, expiresAt: a time, said so.
    .replace(/ at$/, ' time')
}

/** What the request as a whole is called when no field is named. */
const WHOLE = new Map([
  ['body', 'the request body'],
  ['query', 'the query'],
  ['path', 'the address'],
])

/**
 * A field path in words: `defaultSender` is "default sender", `to.2` is "item 3 of to",
 * `data.plan` is "plan (in data)", `body` is "the request body".
 */
export function fieldLabel(field: string): string {
  const whole = WHOLE.get(field)
  if (whole) return whole
  const parts = field.split(/[.[\]]+/).filter(Boolean)
  const last = parts.at(-1) ?? field
  const parent = parts.slice(0, -1)
  if (/^\d+$/.test(last)) {
    const of = parent.at(-1)
    return of ? `item ${Number(last) + 1} of ${fieldLabel(parent.join('.'))}` : `item ${Number(last) + 1}`
  }
  const named = words(last) || field
  const within = parent.map((part) => (/^\d+$/.test(part) ? `item ${Number(part) + 1}` : part))
  return within.length > 0 ? `${named} (in ${within.join(', ')})` : named
}

/** How a fragment said of a field begins. */
const PREDICATE = /^(must|is|are|has|have|never|fires|cannot|can't|should|does|do|was|were|needs?|holds|goes|takes|refers|names|may|contains|exceeds|looks|lacks|matches|repeats|starts|ends|uses|would|will)\b/

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
const stop = (text: string) => (/[.!?…]$/.test(text) ? text : `${text}.`)

/**
 * A message as a sentence about `field`: a sentence is kept (with its full stop), and a fragment
 * ("must be at most 100 characters", "is required") is said of the field: "Name must be at most
 * 100 characters."
 */
export function asSentence(field: string, message: string): string {
  const text = message.trim()
  if (text === '') return stop(`${capital(fieldLabel(field))} is not valid`)
  if (/^[A-Z]/.test(text)) return stop(text)
  // A rule's list of what it takes reads as a choice, as a schema's enum does.
  const choice = /^must be one of:? (.+)$/.exec(text)?.[1]
  if (choice) return stop(`Choose one of these for ${fieldLabel(field)}: ${choice}`)
  // "must be…", "is…": said of the field. Anything else is a sentence of its own, begun in lower case.
  if (PREDICATE.test(text)) return stop(`${capital(fieldLabel(field))} ${text}`)
  return stop(capital(text))
}

/** An example of each string format, for the sentence that asks for one. */
const FORMATS = new Map<string, (label: string) => string>(Object.entries({
  uri: () => 'Enter a full URL, for example https://example.com/webhooks',
  url: () => 'Enter a full URL, for example https://example.com/webhooks',
  email: (label) => `Enter an email address for ${label}, for example jane@example.com`,
  uuid: (label) => `${capital(label)} must be an id like 0b6f3c1e-4f6a-4c1d-9a55-5f1e6a2b7c3d`,
  'date-time': (label) => `Enter ${label} as a date and time, for example 2026-05-01T09:30:00Z`,
  date: (label) => `Enter ${label} as a date, for example 2026-05-01`,
  integer: (label) => `${capital(label)} must be a whole number`,
  numeric: (label: string) => `${capital(label)} must be a number`,
}))

const TYPES: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.String]: 'must be text',
  [ValueErrorType.Number]: 'must be a number',
  [ValueErrorType.Integer]: 'must be a whole number',
  [ValueErrorType.Boolean]: 'must be true or false',
  [ValueErrorType.Object]: 'must be an object',
  [ValueErrorType.Array]: 'must be a list',
  [ValueErrorType.Null]: 'must be null',
  [ValueErrorType.Union]: 'has the wrong type',
}

/** What a request schema's validator found, as error-body.ts receives it. */
export interface SchemaIssue {
  message: string
  /** TypeBox's ValueErrorType. */
  type?: number
  schema?: Record<string, unknown>
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
const choices = (values: unknown[]) => values.map((value) => String(value)).join(', ')

/** A request schema's finding about `field` as a sentence, from its kind and the schema's own limits. */
export function issueSentence(field: string, issue: SchemaIssue): string {
  const label = fieldLabel(field)
  const schema = issue.schema ?? {}
  const enumValues = Array.isArray(schema.enum) ? schema.enum : Array.isArray(schema.anyOf) && schema.anyOf.every((s) => s && typeof s === 'object' && 'const' in s) ? schema.anyOf.map((s) => (s as { const: unknown }).const) : undefined
  if (enumValues && enumValues.length > 0) return `Choose one of these for ${label}: ${choices(enumValues)}.`
  switch (issue.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${capital(label)} is required.`
    case ValueErrorType.ObjectAdditionalProperties:
      return `${capital(label)} is not a field this request takes.`
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1 ? `${capital(label)} must not be empty.` : `${capital(label)} must be at least ${count(Number(schema.minLength), 'character', 'characters')}.`
    case ValueErrorType.StringMaxLength:
      return `${capital(label)} must be at most ${count(Number(schema.maxLength), 'character', 'characters')}.`
    case ValueErrorType.ArrayMinItems:
      return `${capital(label)} must have at least ${count(Number(schema.minItems), 'item', 'items')}.`
    case ValueErrorType.ArrayMaxItems:
      return `${capital(label)} must have at most ${count(Number(schema.maxItems), 'item', 'items')}.`
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `${capital(label)} must be at least ${schema.minimum}.`
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `${capital(label)} must be at most ${schema.maximum}.`
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `${capital(label)} must be more than ${schema.exclusiveMinimum}.`
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return `${capital(label)} must be less than ${schema.exclusiveMaximum}.`
    case ValueErrorType.NumberMultipleOf:
    case ValueErrorType.IntegerMultipleOf:
      return schema.multipleOf === 1 ? `${capital(label)} must be a whole number.` : `${capital(label)} must be a multiple of ${schema.multipleOf}.`
    case ValueErrorType.StringFormat:
    case ValueErrorType.StringFormatUnknown: {
      const format = FORMATS.get(String(schema.format))
      return stop(format ? format(label) : `${capital(label)} is not in the expected form (${String(schema.format)})`)
    }
    case ValueErrorType.StringPattern:
      return `${capital(label)} is not in the expected form.`
    case ValueErrorType.Literal:
      return `${capital(label)} must be ${JSON.stringify(schema.const)}.`
  }
  if (issue.type === ValueErrorType.Union && Array.isArray(schema.anyOf)) {
    const kinds = [...new Set(schema.anyOf.map((branch) => kindOf(branch as Record<string, unknown>)))]
    if (!kinds.includes(undefined)) return `${capital(label)} must be ${(kinds as string[]).join(', or ')}.`
  }
  const type = issue.type === undefined ? undefined : TYPES[issue.type as ValueErrorType]
  if (type) return `${capital(label)} ${type}.`
  return asSentence(field, issue.message.replace(/^Expected /, 'must be '))
}

const range = (schema: Record<string, unknown>) => {
  const { minimum: min, maximum: max } = schema
  if (typeof min === 'number' && typeof max === 'number') return ` from ${min} to ${max}`
  if (typeof min === 'number') return ` of ${min} or more`
  if (typeof max === 'number') return ` of ${max} or less`
  return ''
}

/** One branch of a choice of types in words ("a number from 1 to 100", "null"); undefined when it is not simple. */
function kindOf(schema: Record<string, unknown>): string | undefined {
  // Elysia's t.Integer and t.Numeric: a string of a number or a number, said as the number.
  if (Array.isArray(schema.anyOf) && schema.anyOf.length === 2) {
    const [text, number] = schema.anyOf as Array<Record<string, unknown>>
    if (text?.type === 'string' && (text.format === 'integer' || text.format === 'numeric') && number) return kindOf({ minimum: schema.minimum, maximum: schema.maximum, ...number })
  }
  if (schema.type === 'null') return 'null'
  if (schema.type === 'boolean') return 'true or false'
  if (schema.type === 'integer' || (schema.type === 'number' && schema.multipleOf === 1)) return `a whole number${range(schema)}`
  if (schema.type === 'number') return `a number${range(schema)}`
  // Elysia's t.Numeric and t.Integer: a number, or the same as a string.
  if (schema.type === 'string' && (schema.format === 'numeric' || schema.format === 'integer')) return schema.format === 'integer' ? 'a whole number' : 'a number'
  if (schema.type === 'string' && typeof schema.format === 'string' && FORMATS.has(schema.format)) return schema.format === 'date-time' ? 'a date and time' : schema.format === 'email' ? 'an email address' : schema.format === 'date' ? 'a date' : 'a URL'
  if (schema.type === 'string') return 'text'
  if (schema.type === 'array') return 'a list'
  if (schema.type === 'object') return 'an object'
  return undefined
}
