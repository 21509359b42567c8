// How the tree is shaped, as one JSON line (issue 25 asks for these figures before and after):
//   send_files / send_folders: source files (and their folders) whose lines run for one
//     transactional send, accepted over HTTP and delivered to a fake MX: line counts of
//     `bun test --coverage` over scripts/structure/send-probe.ts, with the send minus without it;
//   attempt_files, attempt_delivery_core_edges: the same for the delivery alone (send minus accept),
//     and how many import edges between those files cross from src/delivery (or src/workers) into
//     src/core: how often one attempt crosses the line between what runs and what decides;
//   core_cycle_group: the largest set of src/core entity folders that import each other in a circle,
//     and core_folder_cycles the elementary cycles between them (type-only imports do not count);
//     the same _with_reactions counts src/core/reactions.ts as a node too, the one place where
//     entities may meet, so loops through it are allowed;
//   cross_entity_repository_imports: files of one core entity importing another's *.repository.ts;
//   foreign_table_access: per table, the files that read or write it outside its owner (src/db/owners.ts);
//   longest_functions: the five longest functions and methods of src (console excluded).
//   bun scripts/structure.ts [--no-probe]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { parseSync } from '@swc/core'
import { ownedBy, TABLE_OWNERS, WHOLE_DATABASE_CODE, type OwnedTable } from '../src/db/owners.ts'
import { tableAccess } from './table-access.ts'

const root = resolve(import.meta.dir, '..')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'console' ? [] : sources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

const files = sources(join(root, 'src')).map((path) => relative(root, path))
const transpiler = new Bun.Transpiler({ loader: 'ts' })

/** The files a file imports for their values: Bun's scan leaves out `import type` and `{ type X }`. */
function valueImports(file: string): string[] {
  return transpiler
    .scanImports(readFileSync(join(root, file), 'utf8'))
    .filter((entry) => entry.path.startsWith('.'))
    .map((entry) => relative(root, resolve(root, dirname(file), entry.path)))
    .filter((target) => files.includes(target))
}
const graph = new Map(files.map((file) => [file, valueImports(file)]))

/** A core entity folder (src/core/contacts), src/core/reactions.ts, or null outside src/core. */
function coreNode(file: string): string | null {
  const match = /^src\/core\/([^/]+)(\/)?/.exec(file)
  if (!match) return null
  return match[2] ? `src/core/${match[1]}` : file
}

/** Strongly connected components (Tarjan) of a small graph. */
function components(nodes: string[], edges: Map<string, Set<string>>): string[][] {
  let index = 0
  const indices = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>(), out: string[][] = []
  const visit = (v: string) => {
    indices.set(v, index), low.set(v, index++), stack.push(v), on.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!indices.has(w)) visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!))
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!))
    }
    if (low.get(v) === indices.get(v)) {
      const group: string[] = []
      for (let w = stack.pop()!; ; w = stack.pop()!) { on.delete(w), group.push(w); if (w === v) break }
      out.push(group)
    }
  }
  for (const v of nodes) if (!indices.has(v)) visit(v)
  return out
}

/** Elementary cycles, counted by a depth-first walk from each node over greater nodes only (small graphs). */
function countCycles(nodes: string[], edges: Map<string, Set<string>>, cap = 1_000_000): number {
  const order = [...nodes].sort()
  let count = 0
  for (const start of order) {
    const onPath = new Set([start])
    const walk = (v: string) => {
      for (const w of edges.get(v) ?? []) {
        if (count >= cap) return
        if (w === start) count++
        else if (w > start && !onPath.has(w)) onPath.add(w), walk(w), onPath.delete(w)
      }
    }
    walk(start)
  }
  return count
}

function coreShape() {
  const edges = new Map<string, Set<string>>()
  for (const [file, targets] of graph) {
    const from = coreNode(file)
    if (!from) continue
    for (const target of targets) {
      const to = coreNode(target)
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to))
    }
  }
  const nodes = [...new Set(files.map(coreNode).filter((n): n is string => n !== null))]
  const largestGroup = (among: string[], by: Map<string, Set<string>>) => Math.max(0, ...components(among, by).filter((g) => g.length > 1).map((g) => g.length))
  // The rule (.dependency-cruiser.cjs): entities may meet only in reactions.ts, so without it no loop should remain.
  const REACTIONS = 'src/core/reactions.ts'
  const entities = nodes.filter((node) => node !== REACTIONS)
  const entityEdges = new Map([...edges].filter(([from]) => from !== REACTIONS).map(([from, to]) => [from, new Set([...to].filter((n) => n !== REACTIONS))]))
  return {
    core_nodes: nodes.length,
    core_cycle_group: largestGroup(entities, entityEdges),
    core_folder_cycles: countCycles(entities, entityEdges),
    core_cycle_group_with_reactions: largestGroup(nodes, edges),
    core_folder_cycles_with_reactions: countCycles(nodes, edges),
  }
}

function crossEntityRepositoryImports(): number {
  let n = 0
  for (const [file, targets] of graph) {
    const from = coreNode(file)
    for (const target of targets) if (from && target.endsWith('.repository.ts') && coreNode(target) !== from && target.startsWith('src/core/')) n++
  }
  // Type-only imports count too: the rule is about who may know a repository at all.
  for (const file of files) {
    const from = coreNode(file)
    if (!from) continue
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(/^import type .* from ['"]([^'"]+\.repository\.ts)['"]/gm)) {
      const target = relative(root, resolve(root, dirname(file), match[1]!))
      if (target.startsWith('src/core/') && coreNode(target) !== from) n++
    }
  }
  return n
}

/** The longest functions and methods, by lines from their first to their last, read with swc's parser. */
function longestFunctions(count = 5) {
  const found: Array<{ name: string; file: string; lines: number }> = []
  for (const file of files) {
    // swc's spans are byte offsets that run on across calls: a first statement `0;` marks where this text starts.
    const text = Buffer.from(`0;\n${readFileSync(join(root, file), 'utf8')}`)
    const module = parseSync(text.toString('utf8'), { syntax: 'typescript' })
    const base = module.body[0]!.span.start
    const lineAt = (offset: number) => text.subarray(0, offset - base).toString('utf8').split('\n').length
    const visit = (node: unknown, name: string): void => {
      if (Array.isArray(node)) return node.forEach((child) => visit(child, name))
      if (!node || typeof node !== 'object') return
      const record = node as Record<string, any>
      const own = record.identifier?.value ?? record.key?.value ?? (record.id?.type === 'Identifier' ? record.id.value : undefined)
      const named = typeof own === 'string' ? own : name
      if (['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassMethod'].includes(record.type) || (record.type === 'MethodProperty')) {
        found.push({ name: named, file, lines: lineAt(record.span.end) - lineAt(record.span.start) + 1 })
      }
      for (const [key, child] of Object.entries(record)) if (key !== 'span') visit(child, named)
    }
    visit(module.body, '(anonymous)')
  }
  return found.sort((a, b) => b.lines - a.lines).slice(0, count)
}

/** Per source file under src/, the line -> hit count of one probe run. */
async function probe(mode: string): Promise<Map<string, Map<number, number>>> {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-structure-'))
  try {
    const run = Bun.spawnSync(['bun', 'test', '--coverage', '--coverage-reporter=lcov', `--coverage-dir=${dir}`, '--timeout', '60000', './scripts/structure/send-probe.ts'], {
      cwd: root, env: { ...process.env, PROBE: mode, MAILSTEAD_TEST_DATABASE: '' }, stdout: 'pipe', stderr: 'pipe',
    })
    if (run.exitCode !== 0) throw new Error(`probe ${mode} failed:\n${run.stderr.toString().slice(-2000)}`)
    const counts = new Map<string, Map<number, number>>()
    let current: Map<number, number> | undefined
    for (const line of readFileSync(join(dir, 'lcov.info'), 'utf8').split('\n')) {
      if (line.startsWith('SF:')) {
        const file = relative(root, resolve(root, line.slice(3)))
        current = file.startsWith('src/') ? new Map() : undefined
        if (current) counts.set(file, current)
      } else if (current && line.startsWith('DA:')) {
        const [at, hits] = line.slice(3).split(',').map(Number)
        current.set(at!, hits!)
      }
    }
    return counts
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The files in which some line ran more often in `more` than in `less`. */
function ranMore(more: Map<string, Map<number, number>>, less: Map<string, Map<number, number>>): string[] {
  return [...more].filter(([file, lines]) => [...lines].some(([at, hits]) => hits > (less.get(file)?.get(at) ?? 0))).map(([file]) => file).sort()
}

const floorOf = (file: string) => file.split('/')[1]!.replace(/\.ts$/, '')

async function sendShape() {
  const none = await probe('none'), accept = await probe('accept'), send = await probe('send')
  const sendFiles = ranMore(send, none)
  const attemptFiles = new Set(ranMore(send, accept))
  let crossings = 0
  for (const file of attemptFiles) {
    if (!['delivery', 'workers'].includes(floorOf(file))) continue
    crossings += graph.get(file)?.filter((target) => attemptFiles.has(target) && floorOf(target) === 'core').length ?? 0
  }
  return {
    send_files: sendFiles.length,
    send_folders: new Set(sendFiles.map((file) => dirname(file))).size,
    attempt_files: attemptFiles.size,
    attempt_delivery_core_edges: crossings,
  }
}

/** Files that read or write a table outside its declared owner (src/db/owners.ts), per table. */
function foreignAccess(): Record<string, number> {
  const per: Record<string, number> = {}
  for (const { file, reads, writes } of tableAccess(root)) {
    if (WHOLE_DATABASE_CODE.includes(file)) continue
    for (const table of new Set([...reads, ...writes])) {
      const owner = TABLE_OWNERS[table as OwnedTable]
      if (owner && !ownedBy(file, owner)) per[table] = (per[table] ?? 0) + 1
    }
  }
  return per
}

const line = {
  ...(process.argv.includes('--no-probe') ? {} : await sendShape()),
  ...coreShape(),
  cross_entity_repository_imports: crossEntityRepositoryImports(),
  foreign_table_access: foreignAccess(),
  source_files: files.length,
  longest_functions: longestFunctions(),
}
console.log(JSON.stringify(line))
