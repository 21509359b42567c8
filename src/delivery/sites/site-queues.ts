import type { Delivery } from '../attempt.ts'
import { SANDBOX_SITE } from './site-of.ts'
import type { SiteIdentity } from './site-of.ts'

export interface SiteQueuesDeps {
  /** Which site a destination domain's mail goes to: known now, or looked up. */
  sites: {
    cached(domain: string): SiteIdentity | undefined
    resolve(domain: string): Promise<SiteIdentity>
  }
  /** Knows a site from here on and answers its name (the shaper's `know`). */
  know: (site: SiteIdentity) => string
  /** A domain's site was looked up and found (for the sites' state to record). */
  found: (domain: string, site: string) => void
  /** Work under way that a stop waits for (a lookup). */
  track: (work: Promise<unknown>) => void
  /** Deliveries became ready, or a slot came free: another round may start some. */
  wake: () => void
}

/**
 * The delivery loop's claimed deliveries, in memory, until each is started or held back: ready
 * ones by site, ones whose domain's site is still being looked up by domain, with the counts a
 * claim and the limits read (buffered per domain, in flight per site and in all), and the
 * domains whose site holds its mail back until a time still to come.
 */
export class SiteQueues {
  /** Deliveries ready to start, by site. */
  readonly #waiting = new Map<string, Delivery[]>()
  /** Deliveries whose domain's site is being looked up, by domain. */
  readonly #unplaced = new Map<string, Delivery[]>()
  /** Buffered deliveries (waiting or unplaced) by destination domain: what a claim skips. */
  readonly #buffered = new Map<string, number>()
  /** Attempts in flight, by site. */
  readonly #active = new Map<string, number>()
  /** Domains whose site holds its mail, until when (the clock's time). */
  readonly #heldDomains = new Map<string, number>()
  #activeCount = 0
  #bufferedCount = 0

  constructor(private readonly deps: SiteQueuesDeps) {}

  /** Claimed deliveries not started yet (waiting or unplaced). */
  get buffered(): number {
    return this.#bufferedCount
  }

  /** Attempts in flight, in all. */
  get active(): number {
    return this.#activeCount
  }

  /** Takes a claimed delivery: with its site's, once the site of its domain is known. */
  add(delivery: Delivery): void {
    const domain = delivery.recipient_domain
    this.#bufferedCount++
    count(this.#buffered, domain, 1)
    // Sandbox mail goes to the simulator: no MX is looked up for it.
    const site = delivery.sandbox === 1 ? SANDBOX_SITE : this.deps.sites.cached(domain)
    if (site) return this.#ready(this.deps.know(site), delivery)
    const list = this.#unplaced.get(domain)
    if (list) return void list.push(delivery)
    this.#unplaced.set(domain, [delivery])
    const lookup = this.deps.sites.resolve(domain).then((found) => {
      const name = this.deps.know(found)
      this.deps.found(domain, name)
      for (const each of this.#unplaced.get(domain) ?? []) this.#ready(name, each)
      this.#unplaced.delete(domain)
      this.deps.wake()
    })
    this.deps.track(lookup)
  }

  /**
   * The destination domains a claim skips: those with a round of attempts (`perDomain`) still
   * buffered, until it runs low, and those whose site holds its mail until a time still to come.
   */
  skippedDomains(perDomain: number, now: number): string[] {
    const stocked = [...this.#buffered.keys()].filter((domain) => this.#buffered.get(domain)! >= perDomain)
    for (const [domain, until] of this.#heldDomains) if (until <= now) this.#heldDomains.delete(domain)
    return [...stocked, ...this.#heldDomains.keys()]
  }

  /** The sites with deliveries waiting; a site that gets its first while this runs comes too. */
  sites(): IterableIterator<string> {
    return this.#waiting.keys()
  }

  /** Whether the site has a delivery waiting and a slot for it: below its connections and the loop's concurrency. */
  hasRoom(site: string, connections: number, concurrency: number): boolean {
    return (this.#waiting.get(site)?.length ?? 0) > 0 && (this.#active.get(site) ?? 0) < connections && this.#activeCount < concurrency
  }

  /** Where the site's first delivery whose project is `ready` stands in its queue; -1 if none is. */
  async firstReady(site: string, isReady: (projectId: number) => Promise<boolean>): Promise<number> {
    const list = this.#listOf(site)
    for (let i = 0; i < list.length; i++) if (await isReady(list[i]!.project_id)) return i
    return -1
  }

  /** The site's waiting delivery at `index`. */
  at(site: string, index: number): Delivery {
    const delivery = this.#listOf(site)[index]
    if (!delivery) throw new Error(`no delivery waits at ${index} for site ${site}`)
    return delivery
  }

  /**
   * Takes the site's waiting delivery at `index` into flight. Its slot is free again at
   * `release` (once; later calls do nothing), which wakes the loop.
   */
  start(site: string, index: number): { delivery: Delivery; release: () => void } {
    const delivery = this.at(site, index)
    this.#listOf(site).splice(index, 1)
    this.#bufferedCount--
    count(this.#buffered, delivery.recipient_domain, -1)
    this.#activeCount++
    count(this.#active, site, 1)
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.#activeCount--
      count(this.#active, site, -1)
      this.deps.wake()
    }
    return { delivery, release }
  }

  /**
   * Takes all of the site's waiting deliveries out, to go back to the queue until `until`:
   * their domains are skipped by claims until then.
   */
  holdBack(site: string, until: number): Delivery[] {
    const deliveries = this.#listOf(site).splice(0)
    this.#bufferedCount -= deliveries.length
    for (const delivery of deliveries) {
      count(this.#buffered, delivery.recipient_domain, -1)
      this.#heldDomains.set(delivery.recipient_domain, until)
    }
    return deliveries
  }

  /** Forgets the site's queue if nothing waits in it any more. */
  tidy(site: string): void {
    if (this.#waiting.get(site)?.length === 0) this.#waiting.delete(site)
  }

  /** Forgets every delivery not started (they go back to the queue by other means). */
  clear(): void {
    this.#waiting.clear()
    this.#unplaced.clear()
    this.#buffered.clear()
    this.#bufferedCount = 0
  }

  #ready(site: string, delivery: Delivery): void {
    const list = this.#waiting.get(site)
    if (list) list.push(delivery)
    else this.#waiting.set(site, [delivery])
  }

  #listOf(site: string): Delivery[] {
    const list = this.#waiting.get(site)
    if (!list) throw new Error(`no deliveries wait for site ${site}`)
    return list
  }
}

/** Adds `change` to a count by key; a count that reaches 0 is forgotten. */
function count(counts: Map<string, number>, key: string, change: number): void {
  const total = (counts.get(key) ?? 0) + change
  if (total <= 0) counts.delete(key)
  else counts.set(key, total)
}
