import type { App } from '../../src/app.ts'
import { errorShapeProblem, HOSTILE_VALUES, type RawBody } from './hostile.ts'
import { dereferenced, type OpenApiDocument } from './openapi-document.ts'
import type { JsonSchema } from './openapi-sample.ts'

export interface Route {
  method: string
  template: string
  params: Array<{ name: string; in: string; schema?: JsonSchema }>
  body?: JsonSchema
}

/** Every operation of the OpenAPI document, its schemas with their components written in. */
export function routesOf(doc: OpenApiDocument): Route[] {
  return Object.entries(doc.paths).flatMap(([template, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method,
      template,
      params: dereferenced(doc, operation.parameters ?? []),
      body: dereferenced(doc, operation.requestBody?.content?.['application/json']?.schema),
    })),
  )
}

/** The path with its parameters filled in, each already URL-encoded. */
export const pathOf = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'none')

/**
 * Sends requests and keeps what went wrong: a 5xx, or an error whose body is not the API's. One
 * line each, so a failing test lists every route at once.
 */
export class Walker {
  readonly problems: string[] = []
  requests = 0

  constructor(
    private readonly app: App,
    private readonly key: string,
  ) {}

  async send(method: string, path: string, raw: RawBody, label: string, expectErrorShape = true): Promise<number> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` }
    if (raw.contentType) headers['content-type'] = raw.contentType
    const canHaveBody = method !== 'GET' && method !== 'HEAD'
    const request = new Request(`http://localhost${path}`, { method: method.toUpperCase(), headers, body: canHaveBody ? raw.body : undefined })
    this.requests++
    const response = await this.app.handle(request)
    const text = await response.text()
    const where = `${method.toUpperCase()} ${path.slice(0, 120)} [${label}]`
    if (response.status >= 500) this.problems.push(`${where}: ${response.status} ${text.slice(0, 200)}`)
    else if (response.status >= 400 && expectErrorShape) {
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // Reported below as not the error body.
      }
      const problem = errorShapeProblem(response.status, body)
      if (problem) this.problems.push(`${where}: ${response.status} error body ${problem}: ${text.slice(0, 200)}`)
    }
    return response.status
  }
}

const MARK = '\u0000hostile\u0000'

/** Paths to every value of `value` down to `depth` levels: object keys, and the first item of arrays. */
function pathsIn(value: unknown, depth: number, at: Array<string | number> = []): Array<Array<string | number>> {
  if (depth === 0 || value === null || typeof value !== 'object') return []
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? (value.length ? [[0, value[0]]] : []) : Object.entries(value)
  return entries.flatMap(([key, child]) => [[...at, key], ...pathsIn(child, depth - 1, [...at, key])])
}

function withMark(base: unknown, path: Array<string | number>): string {
  const copy = structuredClone(base) as any
  let node = copy
  for (const key of path.slice(0, -1)) node = node[key]
  node[path.at(-1)!] = MARK
  return JSON.stringify(copy)
}

/**
 * Bodies that are `base` with one value replaced by a hostile one, for every value down to three
 * levels and every property the schema declares: [label, JSON text].
 */
export function mutatedBodies(base: unknown, declared: string[]): Array<[string, string]> {
  const inBase = pathsIn(base, 3)
  const top = Array.isArray(base) ? [] : declared.filter((name) => !(name in (base as object))).map((name) => [name])
  const prefix = Array.isArray(base) ? [0] : []
  const paths = [...inBase, ...top.map((path) => [...prefix, ...path])]
  return paths.flatMap((path) => {
    const text = withMark(base, path)
    return HOSTILE_VALUES.map(([name, value]): [string, string] => [`${path.join('.')} = ${name}`, text.replace(JSON.stringify(MARK), () => value)])
  })
}
