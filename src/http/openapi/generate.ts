import { filterPaths, generateOperationId, mapProperties, toOpenAPIPath } from '@elysiajs/swagger/utils'
import type { AnyElysia, InternalRoute } from 'elysia'

/**
 * The API's routes as OpenAPI paths, each schema as its route declares it (TypeBox's JSON schema,
 * titles and all). @elysiajs/swagger's own generator rebuilds every response schema from its
 * parts, which drops the title that names it, and lists each in three content types; this one
 * keeps the schema whole, so that named schemas can become components (components.ts).
 */

export type JsonObject = Record<string, any>

const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'TRACE'])
/** A route that names no parser takes JSON (src/http/request-body.ts reads any other text as JSON too). */
const DEFAULT_BODY_TYPES = ['application/json']
const PARSER_TYPES: Record<string, string> = {
  json: 'application/json',
  text: 'text/plain',
  urlencoded: 'application/x-www-form-urlencoded',
  arrayBuffer: 'application/octet-stream',
  formdata: 'multipart/form-data',
}

/** A TypeBox schema as plain JSON: its symbol-keyed markers and transforms fall away. */
const plain = (schema: unknown): JsonObject => JSON.parse(JSON.stringify(schema))

function bodyTypesOf(hooks: JsonObject): string[] {
  const parsers = hooks.parse === undefined ? [] : Array.isArray(hooks.parse) ? hooks.parse : [hooks.parse]
  const types = parsers
    .map((parser: unknown) => (typeof parser === 'string' ? parser : (parser as JsonObject | undefined)?.fn))
    .map((name: unknown) => (typeof name === 'string' ? (PARSER_TYPES[name] ?? (name.includes('/') ? name : undefined)) : undefined))
    .filter((type: string | undefined): type is string => type !== undefined)
  return types.length > 0 ? types : DEFAULT_BODY_TYPES
}

/** Elysia's t.Integer and t.Numeric: a number, or a string of one, which it turns into a number. */
const isCoercedNumber = (schema: JsonObject) =>
  Array.isArray(schema.anyOf) &&
  schema.anyOf.length === 2 &&
  schema.anyOf[0]?.type === 'string' &&
  ['integer', 'numeric'].includes(schema.anyOf[0]?.format) &&
  ['integer', 'number'].includes(schema.anyOf[1]?.type)

/**
 * An answer's numbers as numbers: the server sends a JSON number where a route's answer says
 * t.Integer, never the string the coercion would also take in a request, and a client's types
 * should say so (`count: number`, not `string | number`).
 */
export function answerNumbers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(answerNumbers)
  if (!value || typeof value !== 'object') return value
  const schema = value as JsonObject
  if (isCoercedNumber(schema)) {
    const { anyOf, ...rest } = schema
    return { ...rest, ...anyOf[1] }
  }
  return Object.fromEntries(Object.entries(schema).map(([key, inner]) => [key, key === 'default' || key === 'examples' || key === 'enum' || key === 'const' ? inner : answerNumbers(inner)]))
}

/** A response of one status: JSON for objects and arrays, text for a string. */
function responseOf(schema: JsonObject): JsonObject {
  const json = answerNumbers(plain(schema)) as JsonObject
  if (json.type === 'null' || json.type === 'undefined' || json.type === 'void') return { description: json.description ?? '' }
  const type = json.type === 'string' ? 'text/plain' : 'application/json'
  return { description: json.description ?? '', content: { [type]: { schema: json } } }
}

function responsesOf(response: unknown): JsonObject | undefined {
  if (!response || typeof response !== 'object') return undefined
  // One schema for every status, or a schema per status.
  if ('type' in response || 'anyOf' in response || Symbol.for('TypeBox.Kind') in response) return { 200: responseOf(response as JsonObject) }
  return Object.fromEntries(Object.entries(response).map(([status, schema]) => [status, responseOf(schema as JsonObject)]))
}

function operationOf(method: string, path: string, hooks: JsonObject): JsonObject {
  const parameters = [
    ...mapProperties('header', hooks.headers, {}),
    ...mapProperties('path', hooks.params, {}),
    ...mapProperties('query', hooks.query, {}),
  ].map((parameter) => plain(parameter))
  const responses = responsesOf(hooks.response)
  const { responses: documented, ...detail } = (hooks.detail ?? {}) as JsonObject
  return {
    ...(parameters.length > 0 && { parameters }),
    operationId: detail.operationId ?? generateOperationId(method, path),
    ...detail,
    // Responses the detail writes by hand (a download's content type) stand over the schema's.
    ...((responses || documented) && { responses: { ...responses, ...documented } }),
    ...(hooks.body && {
      requestBody: { required: true, content: Object.fromEntries(bodyTypesOf(hooks).map((type) => [type, { schema: plain(hooks.body) }])) },
    }),
  }
}

/** The paths of every route of `app` that is not hidden. */
export function pathsOf(app: AnyElysia): JsonObject {
  const paths: JsonObject = {}
  // Every route of the whole app, as @elysiajs/swagger reads them (a plugin's own `routes` are its own only).
  const routes = (app as unknown as { getGlobalRoutes(): InternalRoute[] }).getGlobalRoutes()
  for (const route of routes) {
    const hooks = (route.hooks ?? {}) as JsonObject
    if (hooks.detail?.hide === true || !METHODS.has(route.method)) continue
    const path = toOpenAPIPath(route.path)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route.method, path, hooks) }
  }
  return filterPaths(paths, { excludeStaticFile: true, exclude: [] })
}
