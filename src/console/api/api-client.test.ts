import { describe, expect, test } from 'bun:test'
import { ApiClient, withQuery } from './api-client.ts'
import { ApiError } from './api-errors.ts'

interface Seen {
  url: string
  init: RequestInit
}

/** A client whose requests land in `seen` and all get `answer`. */
function clientAnswering(answer: () => Response) {
  const seen: Seen[] = []
  const client = new ApiClient(async (input, init) => {
    seen.push({ url: String(input), init: init ?? {} })
    return answer()
  })
  return { client, seen }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

describe('ApiClient', () => {
  test('sends the project on every request and the CSRF token only on writes, with the same-origin cookie', async () => {
    const { client, seen } = clientAnswering(() => json(200, { ok: true }))
    client.csrfToken = 'csrf-1'
    client.projectId = 7
    await client.get('/api/v1/keys')
    await client.post('/api/v1/keys', { type: 'secret' })
    const [read, write] = seen.map((s) => ({ url: s.url, method: s.init.method, headers: s.init.headers as Record<string, string>, credentials: s.init.credentials, body: s.init.body }))
    expect(read).toEqual({ url: '/api/v1/keys', method: 'GET', headers: { accept: 'application/json', 'x-project-id': '7' }, credentials: 'same-origin', body: undefined })
    expect(write!.headers).toEqual({ accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': 'csrf-1', 'x-project-id': '7' })
    expect(write!.body).toBe('{"type":"secret"}')
  })

  test('sends a form as it is, so the browser names its type and boundary, with the CSRF token', async () => {
    const { client, seen } = clientAnswering(() => json(200, { added: 1 }))
    client.csrfToken = 'csrf-2'
    const form = new FormData()
    form.set('file', new File(['email\na@example.com\n'], 'list.csv', { type: 'text/csv' }))
    await client.upload('/api/v1/suppressions/import', form)
    expect(seen[0]!.init.method).toBe('POST')
    expect(seen[0]!.init.body).toBe(form)
    expect(seen[0]!.init.headers).toEqual({ accept: 'application/json', 'x-csrf-token': 'csrf-2' })
  })

  test('a file comes back as its bytes, with the project named; its failure as an ApiError', async () => {
    const { client, seen } = clientAnswering(() => new Response('From: a@example.com\r\n\r\n{"not":"json"}', { headers: { 'content-type': 'message/rfc822' } }))
    client.projectId = 3
    const blob = await client.blob('/api/v1/emails/e1/raw')
    expect(await blob.text()).toBe('From: a@example.com\r\n\r\n{"not":"json"}')
    expect((seen[0]!.init.headers as Record<string, string>)['x-project-id']).toBe('3')
    const failing = clientAnswering(() => json(410, { code: 'GONE', message: 'deleted by retention' }))
    const error = await failing.client.blob('/api/v1/emails/e1/raw').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(410)
  })

  test('turns an error answer into an ApiError and tells of a session that ended', async () => {
    let signedOut = 0
    const { client } = clientAnswering(() => json(401, { code: 'UNAUTHORIZED', message: 'Not signed in, or the session has ended' }, { 'x-request-id': 'r-9' }))
    client.onSignedOut = () => signedOut++
    const error = await client.get('/api/v1/auth/session').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', requestId: 'r-9' })
    expect(signedOut).toBe(1)
  })

  test('a refused sign-in code (401 TOTP_REQUIRED) is not a session that ended', async () => {
    let signedOut = 0
    const { client } = clientAnswering(() => json(401, { code: 'TOTP_REQUIRED', message: 'Enter the code' }))
    client.onSignedOut = () => signedOut++
    await expect(client.post('/api/v1/auth/sign-in', {})).rejects.toMatchObject({ code: 'TOTP_REQUIRED' })
    expect(signedOut).toBe(0)
  })

  test('a request that never got an answer is a NETWORK ApiError', async () => {
    const client = new ApiClient(async () => {
      throw new TypeError('Failed to fetch')
    })
    await expect(client.get('/health')).rejects.toMatchObject({ status: 0, code: 'NETWORK' })
  })

  test('an empty answer is undefined and a non-JSON error keeps its status', async () => {
    expect(await clientAnswering(() => new Response(null, { status: 204 })).client.delete('/x')).toBeUndefined()
    await expect(clientAnswering(() => new Response('<h1>Bad gateway</h1>', { status: 502 })).client.get('/x')).rejects.toMatchObject({ status: 502, code: 'HTTP_502' })
  })
})

test('withQuery leaves out empty parameters and encodes the rest', () => {
  expect(withQuery('/contacts', { limit: 20, cursor: null, search: '', subscribed: false, q: 'a b&c' })).toBe('/contacts?limit=20&subscribed=false&q=a+b%26c')
  expect(withQuery('/contacts')).toBe('/contacts')
})
