// A signing worker: receives {id, message, keys, at}, answers {id, header} or {id, error}.
import { signMessage } from './dkim.ts'

declare const self: Worker

self.onmessage = async (event: MessageEvent) => {
  const { id, message, keys, at } = event.data
  try {
    self.postMessage({ id, header: await signMessage(message, keys, at) })
  } catch (error) {
    self.postMessage({ id, error: String((error as Error)?.message ?? error) })
  }
}
