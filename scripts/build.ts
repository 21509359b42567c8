// Builds the one executable: `bun scripts/build.ts [--outfile PATH] [--target bun-linux-arm64]`
// (npm run build). The mail worker is a second entry point: a compiled binary has no source
// folder to load it from, so it is bundled in beside the main program.
import { join } from 'node:path'

const root = join(import.meta.dir, '..')
const flag = (name: string) => {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? undefined : process.argv[at + 1]
}
const outfile = flag('outfile') ?? join(root, 'dist', 'mailstead')
const target = flag('target')

const built = Bun.spawnSync(
  [process.execPath, 'build', '--compile', '--minify', ...(target ? [`--target=${target}`] : []), 'src/main.ts', 'src/delivery/mail-worker.ts', '--outfile', outfile],
  { cwd: root, stdout: 'inherit', stderr: 'inherit' },
)
process.exit(built.exitCode ?? 1)
