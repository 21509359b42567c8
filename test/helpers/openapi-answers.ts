import { afterAll, beforeAll, expect } from 'bun:test'
import type { App } from '../../src/app.ts'
import { observeAnswers, type TestResponse } from './app.ts'
import { operationFor, responseSchemaOf, SchemaChecker, type OpenApiDocument } from './openapi-document.ts'

/*
 * The live answers of a test file checked against the API document: call
 * `checkAnswersAgainstDocument()` at the top of the file. Every JSON answer that its test apps'
 * request() gets is matched to its operation (method and path template) and validated with ajv
 * against the schema the document declares for its status; an error status the operation does not
 * list is checked against the one Error schema. What does not conform is collected, and the file
 * fails at its end with the list.
 */

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' }

let loaded: Promise<{ document: OpenApiDocument; checker: SchemaChecker }> | undefined

/** The document, read once per process from the first app that answers (every app serves the same one). */
function documentOf(app: App) {
  loaded ??= app
    .handle(new Request('http://localhost/swagger/json'))
    .then((response) => response.json() as Promise<OpenApiDocument>)
    .then((document) => ({ document, checker: new SchemaChecker(document) }))
  return loaded
}

/** Answers checked so far in this process, for a report. */
export const answerCounts = { checked: 0, skipped: 0 }

const isJson = (answer: TestResponse) => /json/i.test(answer.headers.get('content-type') ?? '') && typeof answer.body === 'object' && answer.body !== null

export function checkAnswersAgainstDocument(): void {
  const problems: string[] = []
  let checked = 0
  const check = async (app: App, method: string, path: string, answer: TestResponse) => {
    if (!isJson(answer)) return void answerCounts.skipped++
    const { document, checker } = await documentOf(app)
    const found = operationFor(document, method, path)
    const where = `${method} ${path.slice(0, 100)} -> ${answer.status}`
    if (!found) {
      // An address no route has: the test asked for it on purpose.
      if (answer.status !== 404 && answer.status !== 405) problems.push(`${where}: no operation in the document`)
      return
    }
    let schema = responseSchemaOf(found.operation, answer.status)
    if (!schema && answer.status >= 400) schema = ERROR_SCHEMA
    if (!schema) {
      if (answer.status < 300) problems.push(`${where}: the document lists no ${answer.status} answer for ${found.method.toUpperCase()} ${found.template}`)
      return
    }
    checked++
    answerCounts.checked++
    const errors = checker.errors(schema, answer.body)
    if (errors.length > 0) problems.push(`${where} (${found.template}): ${errors.slice(0, 4).join('; ')}: ${JSON.stringify(answer.body).slice(0, 300)}`)
  }
  beforeAll(() => observeAnswers(check))
  afterAll(() => {
    observeAnswers(undefined)
    if (process.env.MAILSTEAD_REPORT_ANSWERS) console.log(`[answers] ${checked} JSON answers checked against the API document`)
    expect(problems).toEqual([])
  })
}
