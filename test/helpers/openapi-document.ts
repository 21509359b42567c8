import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/*
 * Mailstead's OpenAPI document as tests read it: its operations by method and concrete path, and
 * ajv validators of its schemas (JSON Schema 2020-12, as OpenAPI 3.1 has them) with its
 * components resolved.
 */

export type OpenApiDocument = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, any>; examples?: Record<string, any> } } & Record<string, any>

const DOC_ID = 'mailstead:document'

/** Every `#/...` reference made absolute, so that schemas compiled apart resolve into the document. */
function absolute(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolute)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, key === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : absolute(v)]))
  }
  return value
}

/** JSON Schema validation against a document's components: what `value` breaks, one line each. */
export class SchemaChecker {
  private readonly ajv: Ajv2020
  private readonly compiled = new Map<string, ValidateFunction>()

  constructor(document: OpenApiDocument) {
    // Not strict: TypeBox's own keywords (error, x-field) ride along in the schemas.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
    addFormats.default(this.ajv)
    // Elysia's numeric and boolean strings name their form in `format`.
    this.ajv.addFormat('integer', /^-?[0-9]+$/)
    this.ajv.addFormat('numeric', /^-?[0-9.]+$/)
    this.ajv.addFormat('boolean', /^(true|false)$/)
    this.ajv.addFormat('binary', true)
    this.ajv.addSchema({ $id: DOC_ID, components: absolute(document.components ?? {}) })
  }

  errors(schema: unknown, value: unknown): string[] {
    const key = JSON.stringify(schema)
    let validate = this.compiled.get(key)
    if (!validate) {
      validate = this.ajv.compile(absolute(schema) as object)
      this.compiled.set(key, validate)
    }
    if (validate(value)) return []
    return (validate.errors ?? []).map((error) => `${error.instancePath || '$'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`)
  }
}

export interface Operation {
  template: string
  method: string
  operation: any
}

/** The operation that serves `method path`: a literal segment beats a parameter (/contacts/import over /contacts/{id}). */
export function operationFor(document: OpenApiDocument, method: string, path: string): Operation | undefined {
  const segments = path.split('?')[0]!.split('/')
  let best: Operation | undefined
  let bestParams = Number.POSITIVE_INFINITY
  for (const [template, operations] of Object.entries(document.paths)) {
    const operation = operations[method.toLowerCase()]
    if (!operation) continue
    const parts = template.split('/')
    if (parts.length !== segments.length) continue
    let params = 0
    const matches = parts.every((part, i) => {
      if (/^\{\w+\}$/.test(part)) return segments[i] !== '' && ++params > 0
      return part === segments[i]
    })
    if (matches && params < bestParams) {
      best = { template, method: method.toLowerCase(), operation }
      bestParams = params
    }
  }
  return best
}

/** The JSON schema of an operation's answer of `status` (or its `default`), when it declares one. */
export const responseSchemaOf = (operation: any, status: number): unknown =>
  (operation.responses?.[String(status)] ?? operation.responses?.default)?.content?.['application/json']?.schema

/** `schema` with every `#/components/...` reference replaced by what it names (the shapes have no cycles). */
export function dereferenced(document: OpenApiDocument, schema: unknown, depth = 0): any {
  if (depth > 32) throw new Error('the document refers in a circle')
  if (Array.isArray(schema)) return schema.map((item) => dereferenced(document, item, depth))
  if (!schema || typeof schema !== 'object') return schema
  const ref = (schema as { $ref?: unknown }).$ref
  if (typeof ref === 'string' && ref.startsWith('#/components/')) {
    const [, , group, name] = ref.split('/')
    return dereferenced(document, (document.components as any)?.[group!]?.[name!], depth + 1)
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, dereferenced(document, value, depth)]))
}
