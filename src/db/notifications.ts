import pg from 'pg'

/** The channel new work is announced on (migration 0022), and the tables whose new rows are work for a loop. */
export const WORK_CHANNEL = 'mailstead_work'
export const ANNOUNCED_TABLES = ['deliveries', 'webhook_deliveries', 'workflow_executions', 'contact_imports'] as const

/** The channel a change to keys, projects or domains is announced on (migration 0019). */
export const CHANGES_CHANNEL = 'mailstead_changes'

export interface Listening {
  close(): Promise<void>
}

export interface ListenOptions {
  /** Each notification: its channel and payload. */
  onMessage(channel: string, payload: string): void
  /** After a connection was lost and made again: what was announced meanwhile was missed. */
  onReconnect(): void
  onError(error: Error): void
  /** The first wait before connecting again; it doubles up to 30 s. */
  retryMs?: number
}

const MAX_RETRY_MS = 30_000

/**
 * LISTENs on `channels` of the PostgreSQL at `url` on a connection of its own (a pooled one
 * cannot hold a LISTEN), connecting again after it is lost, for as long as it is not closed.
 */
export function listen(url: string, channels: readonly string[], options: ListenOptions): Listening {
  const firstRetryMs = options.retryMs ?? 1000
  let client: pg.Client | undefined
  let closed = false
  let retryMs = firstRetryMs
  let retry: ReturnType<typeof setTimeout> | undefined
  let connectedOnce = false

  const connect = async () => {
    if (closed) return
    const next = new pg.Client({ connectionString: url })
    next.on('notification', (message) => options.onMessage(message.channel, message.payload ?? ''))
    next.on('error', (error) => options.onError(error))
    next.on('end', () => {
      if (client !== next || closed) return
      client = undefined
      again()
    })
    try {
      await next.connect()
      for (const channel of channels) await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    } catch (error) {
      options.onError(error as Error)
      await next.end().catch(() => {})
      return again()
    }
    if (closed) return void (await next.end().catch(() => {}))
    client = next
    retryMs = firstRetryMs
    if (connectedOnce) options.onReconnect()
    connectedOnce = true
  }

  const again = () => {
    if (closed) return
    retry = setTimeout(() => void connect(), retryMs)
    retry.unref()
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)
  }

  void connect()
  return {
    async close() {
      closed = true
      clearTimeout(retry)
      await client?.end().catch(() => {})
      client = undefined
    },
  }
}
