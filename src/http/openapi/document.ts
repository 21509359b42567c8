import type { AnyElysia } from 'elysia'
import { hoistNamedSchemas } from './components.ts'
import { exampleOf } from './examples.ts'
import { pathsOf, type JsonObject } from './generate.ts'

/**
 * The API's OpenAPI document: the routes' paths (generate.ts), their named schemas as components
 * (components.ts), the server's address, and an example for every request body and answer.
 * OpenAPI 3.1, whose schemas are JSON Schema as TypeBox writes it (const, examples, type null);
 * 3.0's are not.
 */

export interface DocumentOptions {
  info: JsonObject
  /** Where the API is reached: the public URL, or "/" (this server, whatever its address). */
  serverUrl: string
  securitySchemes: JsonObject
  security: JsonObject[]
}

/** Examples of each media type that is not JSON, by its type. */
const TEXT_EXAMPLES: Record<string, string> = {
  'text/html': '<!doctype html><html><body><p>Hello</p></body></html>',
  'text/csv': 'email,firstName\njane@example.com,Jane\n',
  'message/rfc822': 'From: shop@example.com\r\nTo: jane@example.com\r\nSubject: Hi\r\n\r\nHello\r\n',
  'text/plain': 'Hello',
}

/** The error body's code as a status of that kind gives it. */
const ERROR_CODES: Record<string, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'GONE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  503: 'UNAVAILABLE',
}
const ERROR_REF = '#/components/schemas/Error'

/** The error body of one status: the schema's example with that status's code; `errors` only on a 422. */
function errorExample(components: Record<string, JsonObject>, status: string): unknown {
  const example = exampleOf({ $ref: ERROR_REF }, { components, everyProperty: true }) as JsonObject
  const code = ERROR_CODES[status] ?? 'ERROR'
  const message = `${STATUS_TEXT[status] ?? 'Error'} (an example)`
  const fields: JsonObject = { code, statusCode: Number(status), message }
  for (const key of Object.keys(fields)) if (key in example) example[key] = fields[key]
  if (example.error && typeof example.error === 'object') example.error = { ...example.error, code, message }
  if (status !== '422') delete example.errors
  return example
}

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  400: 'Malformed request',
  401: 'No key, or not a valid one',
  403: 'The key or role may not do this',
  404: 'Not found',
  409: 'Conflict with the current state',
  410: 'Gone',
  413: 'Too large',
  415: 'Unsupported media type',
  422: 'Invalid fields',
  429: 'Too many requests (see Retry-After)',
  503: 'Unavailable',
}

function exampleFor(media: JsonObject, type: string, components: Record<string, JsonObject>, answer: boolean): unknown {
  if (media.schema?.type === 'string' || !/json/.test(type)) {
    if (media.schema?.format === 'binary' || TEXT_EXAMPLES[type]) return TEXT_EXAMPLES[type] ?? TEXT_EXAMPLES['text/plain']
  }
  return exampleOf(media.schema, { components, everyProperty: answer })
}

/**
 * Adds the examples (in place). Every error body is the one Error schema: its example per status
 * is written once, under components.examples, and referred to.
 */
function addExamples(paths: JsonObject, components: Record<string, JsonObject>): Record<string, JsonObject> {
  const errorExamples: Record<string, JsonObject> = {}
  const errorRef = (status: string) => {
    errorExamples[`Error${status}`] ??= { summary: STATUS_TEXT[status] ?? status, value: errorExample(components, status) }
    return { $ref: `#/components/examples/Error${status}` }
  }
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations as JsonObject)) {
      for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as JsonObject)) {
        // A multipart form's file field has no example that a document can hold.
        if (media.example === undefined && type !== 'multipart/form-data') media.example = exampleFor(media, type, components, false)
      }
      for (const [status, response] of Object.entries((operation.responses ?? {}) as JsonObject)) {
        if (!response.description) response.description = STATUS_TEXT[status] ?? ''
        for (const [type, media] of Object.entries((response.content ?? {}) as JsonObject)) {
          if (media.example !== undefined || media.examples !== undefined) continue
          if (media.schema?.$ref === ERROR_REF) media.examples = { error: errorRef(status) }
          else media.example = exampleFor(media, type, components, true)
        }
      }
      // A parameter's `examples` is a map of Example Objects: TypeBox's list becomes one example.
      for (const parameter of operation.parameters ?? []) {
        if (Array.isArray(parameter.examples)) {
          parameter.example = parameter.examples[0]
          delete parameter.examples
        }
      }
    }
  }
  return errorExamples
}

/** The document of every route of `app` that is not hidden. */
export function buildDocument(app: AnyElysia, options: DocumentOptions): JsonObject {
  const paths = pathsOf(app)
  const { schemas } = hoistNamedSchemas(paths)
  const examples = addExamples(paths, schemas)
  return {
    openapi: '3.1.0',
    info: options.info,
    servers: [{ url: options.serverUrl }],
    security: options.security,
    paths,
    components: { schemas, examples, securitySchemes: options.securitySchemes },
  }
}
