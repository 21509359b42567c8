// The web console's weight: bundles it as the server does (src/http/console/bundle.ts) and prints
// one JSON line of gzipped sizes (level 9, as served), in bytes:
//   initial_js: what index.html loads before anything shows (its scripts and their static imports);
//   largest_page_js: that plus the heaviest page's lazily loaded code (the most a first view costs);
//   all_js, css: everything; budget_js and within_budget: the 300 KB budget of issue 15 for the initial load;
//   first_contentful_paint_ms: when Chromium (/usr/bin/chromium) first paints text of /console/ on a
//   slow link (400 ms latency, 400 kbit/s each way, CDP's Network.emulateNetworkConditions, a cold
//   cache), the median of 3 loads from navigation start; html_received_ms: when the HTML had
//   arrived; app_ready_ms: when React had replaced the first-paint shell. Issue 26's goal: a
//   painted shell within 300 ms of the HTML. Without Chromium the three are null.
//   bun scripts/bench/console-size.ts
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ASSETS_PATH, bundleConsole, INDEX } from '../../src/http/console/bundle.ts'
import { log, startBenchServer, stop } from './common.ts'
import { firstPaint } from './first-paint.ts'

const BUDGET = 300 * 1024
const files = new Map((await bundleConsole()).map((file) => [file.name, file.body]))
const text = (name: string) => new TextDecoder().decode(files.get(name))
const gzipped = (name: string) => Bun.gzipSync(files.get(name)!, { level: 9 }).length
const nameOf = (path: string) => path.replace(ASSETS_PATH, '').replace(/^\.\//, '')

/** The scripts a script imports statically (`import"x"`, `from"x"`), not its dynamic `import("x")`. */
const staticImports = (name: string) => [...text(name).matchAll(/(?:\bfrom|\bimport)\s*"([^"]+\.js)"/g)].map((m) => nameOf(m[1]!))
const dynamicImports = (name: string) => [...text(name).matchAll(/\bimport\(\s*"([^"]+\.js)"\s*\)/g)].map((m) => nameOf(m[1]!))

/** A script with everything it needs before running. */
function closure(roots: string[], seen = new Set<string>()): Set<string> {
  for (const name of roots) {
    if (seen.has(name) || !files.has(name)) continue
    seen.add(name)
    closure(staticImports(name), seen)
  }
  return seen
}
const sum = (names: Iterable<string>) => [...names].reduce((total, name) => total + gzipped(name), 0)

const entries = [...text(INDEX).matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => nameOf(m[1]!))
const initial = closure(entries)
const lazy = new Set([...files.keys()].flatMap((name) => (name.endsWith('.js') ? dynamicImports(name) : [])))
const pages = [...lazy].map((name) => sum([...closure([name])].filter((part) => !initial.has(part))))
const scripts = [...files.keys()].filter((name) => name.endsWith('.js'))
const initialJs = sum(initial)

const CHROMIUM = '/usr/bin/chromium'
let paint: Awaited<ReturnType<typeof firstPaint>> | undefined
if (existsSync(CHROMIUM)) {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-console-bench-'))
  // DNS goes nowhere (the discard port): the console's first paint asks nothing of it.
  const { child, url } = await startBenchServer(dir, '127.0.0.1:9')
  try {
    paint = await firstPaint(CHROMIUM, `${url}/console/`, 3)
  } finally {
    await stop(child)
    rmSync(dir, { recursive: true, force: true })
  }
} else log(`${CHROMIUM} is missing: no first-paint measure`)

console.log(
  JSON.stringify({
    initial_js: initialJs,
    largest_page_js: initialJs + Math.max(0, ...pages),
    all_js: sum(scripts),
    css: sum([...files.keys()].filter((name) => name.endsWith('.css'))),
    scripts: scripts.length,
    lazy_chunks: lazy.size,
    budget_js: BUDGET,
    within_budget: initialJs <= BUDGET,
    first_contentful_paint_ms: paint?.firstContentfulPaint ?? null,
    html_received_ms: paint?.htmlReceived ?? null,
    app_ready_ms: paint?.appReady ?? null,
    network: { latency_ms: 400, kbit_per_s: 400 },
  }),
)
