// Builds the one executable: `bun scripts/build.ts [--outfile PATH] [--target bun-linux-arm64]`
// (npm run build). The mail worker is a second entry point: a compiled binary has no source
// folder to load it from, so it is bundled in beside the main program. The web console is
// bundled first and carried inside as files (read back through Bun.embeddedFiles). The
// documentation's pages need nothing here: src/http/docs/sources.ts imports them as text, so the
// bundler puts them in with the code.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundleConsole, EMBEDDED_DIR } from '../src/http/console/bundle.ts'

const root = join(import.meta.dir, '..')
const flag = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? undefined : process.argv[at + 1]
}
const outfile = flag('outfile') ?? join(root, 'dist', 'mailstead')
const target = flag('target')

// A directory of its own, so that builds running at once do not share one. An asset directory
// given by absolute path is embedded under its last name.
const work = mkdtempSync(join(tmpdir(), 'mailstead-build-'))
const consoleDir = join(work, EMBEDDED_DIR)
let exitCode = 1
try {
  for (const file of await bundleConsole()) {
    mkdirSync(join(consoleDir, file.name, '..'), { recursive: true })
    writeFileSync(join(consoleDir, file.name), file.body)
  }
  const built = Bun.spawnSync(
    [process.execPath, 'build', '--compile', '--minify', ...(target ? [`--target=${target}`] : []), 'src/main.ts', 'src/delivery/mail-worker.ts', '--asset', consoleDir, '--outfile', outfile],
    { cwd: root, stdout: 'inherit', stderr: 'inherit' },
  )
  exitCode = built.exitCode ?? 1
} finally {
  rmSync(work, { recursive: true, force: true })
}
process.exit(exitCode)
