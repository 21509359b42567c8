import { createApp } from '../../app.ts'
import { portFallbacks } from '../../smtp/listeners.ts'
import { JSON_FLAG, type Command } from '../command.ts'

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the server: migrations, then the HTTP API, until SIGINT or SIGTERM',
  // Its log is JSON lines already; --json makes the notice of stopping one too.
  flags: JSON_FLAG,
  async run(context) {
    const { config, sources } = context.loadConfig()
    const app = await createApp(config, { smtpPortFallbacks: portFallbacks(sources) })
    await app.start()
    const signal = await context.io.stopSignal
    context.io.err(
      context.flags.json
        ? JSON.stringify({ stopping: true, signal, graceSeconds: config.stopGraceSeconds })
        : `${signal} received, stopping (at most ${config.stopGraceSeconds} s for work under way; ${signal} again exits at once)`,
    )
    await app.stop()
  },
}
