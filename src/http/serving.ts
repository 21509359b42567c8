import { randomUUID } from 'node:crypto'
import type { Server } from 'bun'
import { AppError } from '../lib/errors.ts'
import { settlesWithin } from '../lib/deadline.ts'
import { errorBody } from './errors.ts'

/*
 * The HTTP server's part in a process's life: what a process without the http role answers, and
 * how a stop lets requests under way finish.
 */

/** A process without the http role: /health and /metrics as usual, and a 404 that says why for the rest. */
export function healthOnly(fetch: (request: Request) => Response | Promise<Response>) {
  return (request: Request) => {
    const { pathname } = new URL(request.url)
    if (pathname === '/health' || pathname === '/metrics') return fetch(request)
    const refused = new AppError(404, 'NOT_FOUND', 'This Mailstead process does not serve the API: its role setting (MAILSTEAD_ROLE) leaves out http')
    return Response.json(errorBody(randomUUID(), refused), { status: 404 })
  }
}

/** Lets requests in progress answer within `graceMs`, then closes what is left; answers whether it had to. */
export async function stopHttp(server: Server<undefined> | undefined, graceMs: number): Promise<boolean> {
  if (!server) return false
  if (await settlesWithin(server.stop(), graceMs, () => {})) return false
  await server.stop(true)
  return true
}
