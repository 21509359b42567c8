import type { JsonObject } from './generate.ts'

/**
 * A value that a schema accepts, made up the same way every time: a schema's own `examples`
 * first, then its const, its first enum value, its first alternative that is not null, and
 * otherwise a small value of its type that keeps its bounds. Objects carry their required
 * properties (and a message's subject and body), and in an answer every property (a reader sees the whole shape). Field names that
 * hold addresses, ids or links get one that reads as such. Tests check every example against its
 * schema.
 */

export interface ExampleOptions {
  /** components.schemas, for $ref. */
  components: Record<string, JsonObject>
  /** An answer's example shows optional properties too; a request's has the required ones. */
  everyProperty: boolean
}

const AT = '2025-06-01T12:00:00.000Z'
const HINTS: Array<[RegExp, string]> = [
  [/email|^to$|^from$|replyto|^cc$|^bcc$|address$/i, 'jane@example.com'],
  [/url$|^href$|^link$/i, 'https://example.com/'],
  [/domain$/i, 'example.com'],
  [/^name$/i, 'Example'],
  [/At$|^timestamp$/, AT],
  [/^(subject|title)$/i, 'Welcome aboard'],
  [/^(body|html)$/i, '<p>Hello {{data.firstName ?? "there"}}</p>'],
  [/id$/i, 'cmb0example0000000000001'],
]
/** What a string of no other hint tries, in order, against its pattern and lengths. */
const STRINGS = ['example', '1', 'x']
const MAX_DEPTH = 12
/** Optional fields a request's example shows all the same: without them a message says nothing. */
const CONTENT = /^(subject|body|html)$/

/** A string for a field named `name` that meets the schema's format, pattern and lengths. */
function stringFor(schema: JsonObject, name: string): string {
  if (schema.format === 'date-time') return AT
  if (schema.format === 'date') return AT.slice(0, 10)
  if (schema.format === 'email') return 'jane@example.com'
  if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/'
  if (schema.format === 'integer') return '1'
  if (schema.format === 'boolean') return 'true'
  const hinted = HINTS.find(([pattern]) => pattern.test(name))?.[1]
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined
  const min = schema.minLength ?? 0
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY
  const fits = (text: string) => text.length >= min && text.length <= max && (!pattern || pattern.test(text))
  const found = [...(hinted ? [hinted] : []), ...STRINGS].find(fits)
  if (found) return found
  // Lengths alone: as many x's as the least length (a pattern beside them is not matched here).
  return 'x'.repeat(Math.max(min, 1)).slice(0, Number.isFinite(max) ? max : undefined)
}

function numberFor(schema: JsonObject): number {
  const step = schema.type === 'integer' || schema.multipleOf === 1 ? 1 : (schema.multipleOf ?? 1)
  let value = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? Number(schema.exclusiveMinimum) + step : 1)
  if (schema.maximum !== undefined && value > schema.maximum) value = schema.maximum
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) value = Number(schema.exclusiveMaximum) - step
  return value
}

function objectFor(schema: JsonObject, options: ExampleOptions, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>
  const required = new Set<string>(schema.required ?? [])
  const names = Object.keys(properties).filter((name) => required.has(name) || options.everyProperty || CONTENT.test(name))
  // A request of only optional fields (a change) shows its first one rather than nothing.
  if (names.length === 0 && Object.keys(properties).length > 0 && !options.everyProperty) names.push(Object.keys(properties)[0]!)
  const value: Record<string, unknown> = {}
  for (const name of names) {
    const field = exampleOf(properties[name]!, options, name, depth + 1)
    if (field !== undefined) value[name] = field
  }
  return value
}

/**
 * The alternative an example shows: not null, and not the text form of a number that Elysia's
 * t.Integer also accepts (an answer carries the number).
 */
function preferred(alternatives: JsonObject[]): JsonObject {
  const textNumber = (option: JsonObject) => option.type === 'string' && ['integer', 'numeric', 'number', 'boolean'].includes(option.format)
  return alternatives.find((option) => option.type !== 'null' && !textNumber(option)) ?? alternatives.find((option) => option.type !== 'null') ?? alternatives[0]!
}

/** An example of `schema`; `name` is the property that holds it. */
export function exampleOf(schema: JsonObject | undefined, options: ExampleOptions, name = '', depth = 0): unknown {
  if (!schema || depth > MAX_DEPTH) return null
  if (typeof schema.$ref === 'string') return exampleOf(options.components[schema.$ref.split('/').pop()!], options, name, depth + 1)
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.example !== undefined) return schema.example
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum[0]
  const alternatives: JsonObject[] | undefined = schema.anyOf ?? schema.oneOf
  if (alternatives) return exampleOf(preferred(alternatives), options, name, depth + 1)
  if (Array.isArray(schema.allOf)) {
    // Objects merge; for anything else the first part's example stands for all (t.Composite
    // gives a field that two parts both have as allOf of its two schemas).
    const parts = schema.allOf.map((part: JsonObject) => exampleOf(part, options, name, depth + 1))
    const isRecord = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value)
    return parts.every(isRecord) ? Object.assign({}, ...parts) : parts[0]
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t: string) => t !== 'null') ?? 'null') : schema.type
  switch (type) {
    case 'object':
      return objectFor(schema, options, depth)
    case 'array': {
      const count = schema.maxItems === 0 ? 0 : Math.max(1, schema.minItems ?? 0)
      return Array.from({ length: count }, () => exampleOf(schema.items, options, name, depth + 1))
    }
    case 'integer':
    case 'number':
      return numberFor(schema)
    case 'boolean':
      return true
    case 'null':
      return null
    case 'string':
      return stringFor(schema, name)
    default:
      // No type: anything goes. An object if it names properties, else nothing in particular.
      return schema.properties ? objectFor(schema, options, depth) : null
  }
}
