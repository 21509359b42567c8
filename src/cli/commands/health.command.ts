import { AppError } from '../../lib/errors.ts'
import { JSON_FLAG, print, type Command } from '../command.ts'

const TIMEOUT_MS = 3000

/** Where a client on this machine reaches the HTTP API: a wildcard listen address is reached on loopback. */
const localAddress = (host: string) => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host)

export const healthCommand: Command = {
  name: 'health',
  summary: "Ask the running server's /health (exit code 0 when it answers ok) and print its warnings: the container's health check",
  flags: JSON_FLAG,
  async run(context) {
    const { config } = context.loadConfig()
    const url = `http://${localAddress(config.httpHost)}:${config.httpPort}/health`
    const answer = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
      .then(async (response) => ({ ok: response.ok, body: (await response.json().catch(() => null)) as { status?: string; problems?: string[]; listeners?: object; warnings?: string[] } | null }))
      .catch((error: Error) => ({ ok: false, body: null, error: error.message }))
    if (!answer.ok || answer.body?.status !== 'ok') {
      const why = 'error' in answer ? `: ${answer.error}` : answer.body?.problems?.length ? `: ${answer.body.problems.join('; ')}` : ''
      throw new AppError(503, 'UNHEALTHY', `${url} is ${answer.body?.status ?? 'not answering'}${why}`)
    }
    // The self-checks' warnings are printed, but they leave the exit code 0: the server runs.
    print(context, answer.body, () => [`ok: ${url}`, ...(answer.body?.warnings ?? []).map((warning) => `warning: ${warning}`)])
  },
}
