import { randomUUID } from 'node:crypto'
import type { Server } from 'bun'
import { ConfigError } from '../config/config-error.ts'
import type { Config } from '../config/config-schema.ts'
import { AppError } from '../lib/errors.ts'
import { settlesWithin } from '../lib/deadline.ts'
import { errorBody } from './error-body.ts'

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

type ServeOptions = Pick<Bun.Serve.Options<undefined>, 'fetch' | 'maxRequestBodySize' | 'idleTimeout'>

/**
 * Listens on httpHost:httpPort. A port that cannot be bound ends the start with one line that
 * names the setting and the port, instead of Bun's stack trace.
 */
export function serveHttp(config: Pick<Config, 'httpHost' | 'httpPort'>, options: ServeOptions): Server<undefined> {
  try {
    return Bun.serve({ ...options, hostname: config.httpHost, port: config.httpPort } as Bun.Serve.Options<undefined>)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const why = code === 'EADDRINUSE' ? 'it is in use' : code === 'EACCES' ? 'it needs root or CAP_NET_BIND_SERVICE' : (error as Error).message
    throw new ConfigError(`Cannot listen for HTTP on ${config.httpHost}:${config.httpPort}: ${why}. Change httpPort (MAILSTEAD_HTTP_PORT, --http-port).`)
  }
}

/** Lets requests in progress answer within `graceMs`, then closes what is left; answers whether it had to. */
export async function stopHttp(server: Server<undefined> | undefined, graceMs: number): Promise<boolean> {
  if (!server) return false
  if (await settlesWithin(server.stop(), graceMs, () => {})) return false
  await server.stop(true)
  return true
}
