import type { Clock } from './clock.ts'

/** A bounded map whose entries expire; the oldest entry goes first when it is full. */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>()

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= this.clock.now()) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: string, value: V, ttlMs = this.ttlMs): void {
    this.#entries.delete(key)
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#entries.delete(oldest)
    }
    this.#entries.set(key, { value, expiresAt: this.clock.now() + ttlMs })
  }

  clear(): void {
    this.#entries.clear()
  }
}
