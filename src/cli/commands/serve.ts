import { createApp } from '../../app.ts'
import type { Command } from '../command.ts'

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the server: migrations, then the HTTP API, until SIGINT or SIGTERM',
  async run(context) {
    const { config } = context.loadConfig()
    const app = await createApp(config)
    await app.start()
    const signal = await context.io.stopSignal
    context.io.err(`${signal} received, stopping (at most ${config.stopGraceSeconds} s for work under way; ${signal} again exits at once)`)
    await app.stop()
  },
}
