// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { canonical } from '../../src/http/openapi/components.ts'
import { serverUrlOf } from '../../src/http/openapi/routes.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { operationFor, SchemaChecker, type OpenApiDocument } from '../helpers/openapi-document.ts'

/*
 * The OpenAPI document itself: valid OpenAPI 3.1, its shared shapes written once as components,
 * and an example for every operation that its own schema accepts.
 */

let t: TestApp
let document: OpenApiDocument
let text: string
let checker: SchemaChecker

/** Every operation as [`METHOD /path`, operation]. */
const operations = () =>
  Object.entries(document.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const))

/** Every schema position of the operations: parameters, bodies, answers, with where each is. */
function operationSchemas(): Array<[string, any]> {
  return operations().flatMap(([name, op]) => [
    ...(op.parameters ?? []).map((p: any) => [`${name} parameter ${p.name}`, p.schema]),
    ...Object.entries(op.requestBody?.content ?? {}).map(([type, media]: [string, any]) => [`${name} body ${type}`, media.schema]),
    ...Object.entries(op.responses ?? {}).flatMap(([status, response]: [string, any]) =>
      Object.entries(response.content ?? {}).map(([type, media]: [string, any]) => [`${name} ${status} ${type}`, media.schema]),
    ),
  ])
}

/** Each subschema of `schema` with `schema` itself (not into components: a $ref is a leaf). */
function* subschemas(schema: any): Generator<any> {
  if (!schema || typeof schema !== 'object') return
  yield schema
  for (const [key, value] of Object.entries(schema)) {
    if (['examples', 'example', 'default', 'enum', 'const'].includes(key)) continue
    if (key === 'properties' || key === 'patternProperties') for (const sub of Object.values(value as object)) yield* subschemas(sub)
    else if (Array.isArray(value)) for (const sub of value) yield* subschemas(sub)
    else if (value && typeof value === 'object') yield* subschemas(value)
  }
}

beforeAll(async () => {
  t = await createTestApp()
  const response = await t.app.handle(new Request('http://localhost/swagger/json'))
  text = await response.text()
  document = JSON.parse(text)
  checker = new SchemaChecker(document)
})

afterAll(() => t.close())

describe('the OpenAPI document', () => {
  test('is valid OpenAPI 3.1', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(document))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  test('is lean: shared shapes are components, referred to by $ref', () => {
    const schemas = document.components!.schemas!
    for (const name of ['Error', 'Contact', 'Campaign', 'Template', 'Domain', 'Webhook', 'EmailSummary', 'Segment']) expect(Object.keys(schemas)).toContain(name)
    // No two schemas were given one name.
    expect(Object.keys(schemas).filter((name) => /[0-9]$/.test(name) && schemas[name.replace(/[0-9]+$/, '')])).toEqual([])
    // An error answer is a reference, not a copy.
    expect(document.paths['/campaigns']!.post.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' })
    // Measured: 1.9 MB and 25 KB for POST /campaigns when every schema was written in place.
    expect(text.length).toBeLessThan(450_000)
    expect(JSON.stringify(document.paths['/campaigns']!.post).length).toBeLessThan(5_000)
  })

  test('no schema written in place is a copy of a component, nor larger than 3,000 characters', () => {
    const shapes = new Map(Object.entries(document.components!.schemas!).map(([name, { title: _, ...schema }]) => [canonical(schema), name]))
    const copies: string[] = []
    const large: string[] = []
    for (const [where, schema] of operationSchemas()) {
      for (const sub of subschemas(schema)) {
        const { title: _, ...shape } = sub
        const key = canonical(shape)
        if (key.length >= 120 && shapes.has(key)) copies.push(`${where}: a copy of ${shapes.get(key)}`)
      }
      if (canonical(schema).length > 3_000) large.push(`${where}: ${canonical(schema).length} characters`)
    }
    expect(copies).toEqual([])
    expect(large).toEqual([])
  })

  test('names where the API is: the public URL when one is set, else "/"', () => {
    expect(document.servers).toEqual([{ url: '/' }])
    expect(serverUrlOf({ publicUrl: 'https://mail.example.com', httpHost: '0.0.0.0', httpPort: 3000 })).toBe('https://mail.example.com')
    expect(serverUrlOf({ publicUrl: 'http://127.0.0.1:3000', httpHost: '127.0.0.1', httpPort: 3000 })).toBe('/')
  })

  test('every operation has an example of its request body and of an answer', () => {
    const missing: string[] = []
    for (const [name, op] of operations()) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}) as Array<[string, any]>) {
        if (type !== 'multipart/form-data' && media.example === undefined) missing.push(`${name}: body ${type}`)
      }
      const answers = Object.values(op.responses ?? {}).flatMap((response: any) => Object.values(response.content ?? {})) as any[]
      if (!answers.some((media) => media.example !== undefined || media.examples !== undefined)) missing.push(`${name}: no answer has an example`)
    }
    expect(missing).toEqual([])
  })

  test('every example is accepted by its schema', () => {
    const refused: string[] = []
    let checked = 0
    const check = (where: string, schema: unknown, media: any) => {
      const examples = media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((example: any) => resolveExample(example))
      for (const example of examples) {
        if (typeof example === 'string' && !(schema as any)?.type && !(schema as any)?.$ref) continue
        checked++
        const errors = checker.errors(schema, example)
        if (errors.length > 0) refused.push(`${where}: ${errors.slice(0, 3).join('; ')} in ${JSON.stringify(example).slice(0, 300)}`)
      }
    }
    for (const [name, op] of operations()) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {}) as Array<[string, any]>) check(`${name} body ${type}`, media.schema, media)
      for (const [status, response] of Object.entries(op.responses ?? {}) as Array<[string, any]>) {
        for (const [type, media] of Object.entries(response.content ?? {}) as Array<[string, any]>) check(`${name} ${status} ${type}`, media.schema, media)
      }
    }
    expect(refused).toEqual([])
    expect(checked).toBeGreaterThan(400)
  })
})

describe("the checks that test files run on live answers (test/helpers/openapi-answers.ts)", () => {
  test('an answer is matched to its operation, a literal segment before a parameter', () => {
    expect(operationFor(document, 'GET', '/contacts/import?limit=5')?.template).toBe('/contacts/import')
    expect(operationFor(document, 'GET', '/contacts/c123')?.template).toBe('/contacts/{id}')
    expect(operationFor(document, 'GET', '/no/such/route')).toBeUndefined()
  })

  test('an answer that breaks its schema is refused, through $ref', () => {
    const contact = { $ref: '#/components/schemas/Contact' }
    expect(checker.errors(contact, { id: 'c1', email: 'a@example.com', subscribed: true, data: {}, createdAt: '2025-06-01T12:00:00.000Z', updatedAt: '2025-06-01T12:00:00.000Z' })).toEqual([])
    expect(checker.errors(contact, { id: 'c1', email: 'a@example.com', subscribed: 'yes' })).not.toEqual([])
    expect(checker.errors({ type: 'array', items: contact }, [{ id: 1 }]).join()).toContain('/0')
  })
})

/** An Example Object, or the component it refers to, as its value. */
function resolveExample(example: any): unknown {
  if (typeof example.$ref === 'string') return document.components!.examples![example.$ref.split('/').pop()!].value
  return example.value
}
