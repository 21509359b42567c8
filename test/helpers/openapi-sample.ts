/** A JSON schema as the OpenAPI document gives it (only what the sample needs). */
export interface JsonSchema {
  type?: string
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  minItems?: number
  minimum?: number
  examples?: unknown[]
  format?: string
  pattern?: string
}

const ADDRESS_FIELD = /email|^to$|^from$|reply|^cc$|^bcc$/i

/**
 * A value the schema accepts, made up: required properties only, first alternatives, the smallest
 * numbers. Field names that hold addresses get an address.
 */
export function sampleOf(schema: JsonSchema | undefined, name = ''): unknown {
  if (!schema) return 'x'
  if (schema.const !== undefined) return schema.const
  if (schema.enum) return schema.enum[0]
  if (schema.examples?.length) return schema.examples[0]
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives) return sampleOf(alternatives.find((option) => option.type !== 'null') ?? alternatives[0], name)
  switch (schema.type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key) => [key, sampleOf(schema.properties?.[key], key)]))
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => sampleOf(schema.items, name))
    case 'integer':
    case 'number':
      return schema.minimum ?? 1
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      if (schema.format === 'date-time') return new Date().toISOString()
      return ADDRESS_FIELD.test(name) ? 'jane@example.net' : 'x'
  }
}

/** The properties of an object schema, or of the items of an array of objects. */
export function fieldsOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  if (!schema) return {}
  if (schema.type === 'array') return fieldsOf(schema.items)
  return schema.properties ?? {}
}
