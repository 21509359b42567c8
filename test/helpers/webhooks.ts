import { waitFor } from './until.ts'
import type { World } from './world.ts'

export interface HookCall {
  path: string
  headers: Headers
  body: string
  payload: { id: string; type: string; createdAt: string; data: any }
}

/**
 * An endpoint on 127.0.0.1 that records every call. What it answers goes by the path:
 * /fail... 500; /hang... nothing until released; /never... nothing, ever; /redirect 302;
 * /endless a body without end; /switch... 503 until `switchOk`; anything else 200.
 */
export function startHookServer() {
  const calls: HookCall[] = []
  let waiting: Array<() => void> = []
  let released = false
  const state = { switchOk: false }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname
      const body = await request.text()
      calls.push({ path, headers: request.headers, body, payload: JSON.parse(body) })
      if (path.startsWith('/fail')) return new Response('broken', { status: 500 })
      if (path.startsWith('/never')) return new Promise<Response>(() => {})
      if (path.startsWith('/hang') && !released) return new Promise<Response>((resolve) => waiting.push(() => resolve(new Response('late'))))
      if (path === '/redirect') return Response.redirect('http://127.0.0.1:1/elsewhere', 302)
      if (path === '/endless') return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(new Uint8Array(16 * 1024)) }))
      if (path.startsWith('/switch') && !state.switchOk) return new Response('busy', { status: 503 })
      return new Response('ok')
    },
  })
  return {
    base: `http://127.0.0.1:${server.port}`,
    calls,
    state,
    to: (path: string) => calls.filter((call) => call.path === path),
    /** Answers the /hang calls waiting, and every later one at once. */
    release() {
      released = true
      for (const answer of waiting) answer()
      waiting = []
    },
    stop: () => server.stop(true),
  }
}

export type HookServer = ReturnType<typeof startHookServer>

/** Creates a webhook through the API; fails the test when it is refused. */
export async function createHook(w: Pick<World, 't'>, key: string, url: string, events: string[] = ['*'], extra: Record<string, unknown> = {}) {
  const answer = await w.t.request('POST', '/webhooks', { key, body: { url, events, ...extra } })
  if (answer.status !== 201) throw new Error(`webhook refused: ${JSON.stringify(answer.body)}`)
  return answer.body as { id: string; url: string; secret: string; events: string[] }
}

/** Waits until `done` holds, for 5 s at most. */
export const until = (done: () => boolean, what = 'the condition') => waitFor(done, what, 5000, 10)
