import { createApp, databaseTarget } from '../../app.ts'
import { refuseUnfinishedDialect } from '../../db/client.ts'
import type { Command } from '../command.ts'

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the server: migrations, then the HTTP API, until SIGINT or SIGTERM',
  async run(context) {
    const { config } = context.loadConfig()
    refuseUnfinishedDialect(databaseTarget(config))
    const app = await createApp(config)
    await app.start()
    const signal = await context.io.stopSignal
    context.io.err(`${signal} received, stopping (at most ${config.stopGraceSeconds} s for work under way; ${signal} again exits at once)`)
    await app.stop()
  },
}
