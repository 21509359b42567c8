import { networkError, toApiError } from './api-errors.ts'

/**
 * The console's one way to the HTTP API: same-origin requests carrying the session cookie, the
 * session's CSRF token on writes and the chosen project in X-Project-Id, JSON both ways, and every
 * error answer turned into an ApiError.
 */

export type Query = Record<string, string | number | boolean | null | undefined>

export interface RequestOptions {
  query?: Query
  body?: unknown
  signal?: AbortSignal
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** `path?query`, leaving out the parameters that are null, undefined or empty. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value))
  }
  const search = params.toString()
  return search ? `${path}?${search}` : path
}

/** What the client sends requests with: the browser's fetch, or a test's. */
export type Fetcher = (input: string, init: RequestInit) => Promise<Response>

export class ApiClient {
  /** The session's CSRF token, from sign-in or GET /api/v1/auth/session. */
  csrfToken: string | undefined
  /** The project the console shows; the API reads it from X-Project-Id. */
  projectId: number | undefined
  /** Called when an answer says the session is gone (401), so the console can ask to sign in. */
  onSignedOut: (() => void) | undefined

  constructor(private readonly fetcher: Fetcher = (input, init) => fetch(input, init)) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await readBody(await this.respond(method, path, options))) as T
  }

  /** What a route answers with other than JSON (an email's raw message, say): its bytes. */
  async blob(path: string, query?: Query): Promise<Blob> {
    return (await this.respond('GET', path, { query })).blob()
  }

  /** The answer of a request that succeeded; a failure is thrown as an ApiError. */
  private async respond(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' }
    // A form (a file upload) says its own type, with its boundary; anything else goes as JSON.
    const form = options.body instanceof FormData
    if (options.body !== undefined && !form) headers['content-type'] = 'application/json'
    if (WRITES.has(method) && this.csrfToken) headers['x-csrf-token'] = this.csrfToken
    if (this.projectId !== undefined) headers['x-project-id'] = String(this.projectId)
    let response: Response
    try {
      response = await this.fetcher(withQuery(path, options.query), {
        method,
        headers,
        body: options.body === undefined ? undefined : form ? (options.body as FormData) : JSON.stringify(options.body),
        credentials: 'same-origin',
        signal: options.signal,
      })
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error
      throw networkError(error)
    }
    if (response.ok) return response
    const failure = toApiError(response.status, await readBody(response), response.headers.get('x-request-id'))
    if (response.status === 401 && failure.code === 'UNAUTHORIZED') this.onSignedOut?.()
    throw failure
  }

  /** A multipart form, e.g. a CSV file in its field "file". */
  upload = <T>(path: string, form: FormData) => this.request<T>('POST', path, { body: form })
  get = <T>(path: string, query?: Query, signal?: AbortSignal) => this.request<T>('GET', path, { query, signal })
  post = <T>(path: string, body?: unknown) => this.request<T>('POST', path, { body })
  patch = <T>(path: string, body?: unknown) => this.request<T>('PATCH', path, { body })
  delete = <T>(path: string) => this.request<T>('DELETE', path)
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '')
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
