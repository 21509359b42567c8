import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createWorkerPool } from './worker-pool.ts'

const dir = mkdtempSync(join(tmpdir(), 'mailstead-workers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const script = (name: string, body: string) => {
  const path = join(dir, name)
  writeFileSync(path, body)
  return pathToFileURL(path)
}

describe('createWorkerPool', () => {
  test('answers each job by its id', async () => {
    const pool = createWorkerPool(script('double.ts', 'self.onmessage = (e) => self.postMessage({ id: e.data.id, result: e.data.n * 2 })'), 2)
    expect(await Promise.all([1, 2, 3].map((n) => pool.run<number>({ n })))).toEqual([2, 4, 6])
    pool.close()
  })

  test('a worker that cannot load fails its jobs instead of leaving them waiting', async () => {
    const pool = createWorkerPool(script('broken.ts', 'throw new Error("cannot start")'), 1)
    await expect(pool.run({ n: 1 })).rejects.toThrow('mail worker failed')
    pool.close()
  })
})
