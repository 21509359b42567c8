import type { JsonObject } from './generate.ts'

/**
 * Named schemas become components. A route's TypeBox schema that carries a `title` (the API's
 * shared shapes: Contact, Campaign, Error...) is written once under components.schemas by that
 * name and referred to with $ref wherever it appears; TypeBox copies a schema into each place
 * that uses it, which is what made one operation tens of kilobytes. An untitled copy of a named
 * schema (t.Partial and friends copy the title's owner without its title) is referred to as well.
 */

/** Keywords whose values are data, not schemas: nothing under them is walked. */
const DATA_KEYWORDS = new Set(['examples', 'example', 'default', 'enum', 'const'])
/** An untitled schema this long or longer that equals a component is replaced by a $ref to it. */
const SHARED_COPY_CHARS = 120

/** JSON with its keys in order, so that equal schemas give equal text. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

const withoutTitle = ({ title: _, ...rest }: JsonObject) => rest
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

export interface Hoisted {
  schemas: Record<string, JsonObject>
  /** Titles that two different schemas carried: the later ones were named Title2, Title3... */
  collisions: string[]
}

/** Applies `visit` to every schema position of an operation (parameters, bodies, responses). */
function eachOperationSchema(paths: JsonObject, visit: (schema: JsonObject) => JsonObject): void {
  const content = (holder: JsonObject | undefined) => {
    for (const media of Object.values((holder?.content ?? {}) as JsonObject)) if (isObject(media.schema)) media.schema = visit(media.schema)
  }
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations as JsonObject)) {
      for (const parameter of operation.parameters ?? []) if (isObject(parameter.schema)) parameter.schema = visit(parameter.schema)
      content(operation.requestBody)
      for (const response of Object.values((operation.responses ?? {}) as JsonObject)) content(response)
    }
  }
}

/** `schema` with `replace` applied to each of its subschemas, deepest first, and then to itself. */
function mapSchema(schema: JsonObject, replace: (schema: JsonObject) => JsonObject): JsonObject {
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) out[key] = value
    else if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value as JsonObject).map(([name, sub]) => [name, isObject(sub) ? mapSchema(sub, replace) : sub]))
    } else if (Array.isArray(value)) out[key] = value.map((sub) => (isObject(sub) ? mapSchema(sub, replace) : sub))
    else if (isObject(value)) out[key] = mapSchema(value, replace)
    else out[key] = value
  }
  return replace(out)
}

/** Moves every titled schema of `paths` into components (in place) and returns them. */
export function hoistNamedSchemas(paths: JsonObject): Hoisted {
  const schemas: Record<string, JsonObject> = {}
  const nameOf = new Map<string, string>()
  const collisions: string[] = []
  const hoist = (schema: JsonObject): JsonObject => {
    const title = schema.title
    if (typeof title !== 'string' || !/^[A-Za-z0-9._-]+$/.test(title)) return schema
    const key = canonical(schema)
    let name = nameOf.get(key)
    if (!name) {
      name = title
      for (let n = 2; schemas[name]; n++) name = `${title}${n}`
      if (name !== title && !collisions.includes(title)) collisions.push(title)
      schemas[name] = schema
      nameOf.set(key, name)
    }
    return { $ref: `#/components/schemas/${name}` }
  }
  eachOperationSchema(paths, (schema) => mapSchema(schema, hoist))
  // Untitled copies of a component, in operations and in other components.
  const byShape = new Map(Object.entries(schemas).map(([name, schema]) => [canonical(withoutTitle(schema)), name]))
  const refer = (schema: JsonObject): JsonObject => {
    if ('title' in schema || '$ref' in schema) return schema
    const key = canonical(schema)
    const name = key.length >= SHARED_COPY_CHARS ? byShape.get(key) : undefined
    return name ? { $ref: `#/components/schemas/${name}` } : schema
  }
  eachOperationSchema(paths, (schema) => mapSchema(schema, refer))
  for (const [name, schema] of Object.entries(schemas)) {
    schemas[name] = Object.fromEntries(
      Object.entries(mapSchema(schema, (sub) => (sub === schema ? sub : refer(sub)))).map(([k, v]) => [k, v]),
    )
  }
  return { schemas, collisions }
}
