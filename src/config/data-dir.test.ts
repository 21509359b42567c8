import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultDataDir } from './data-dir.ts'

const root = mkdtempSync(join(tmpdir(), 'mailstead-checkout-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

test('inside a Mailstead checkout, from any folder of it, the data directory is data at its root', () => {
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'mailstead' }))
  mkdirSync(join(root, 'src', 'cli'), { recursive: true })
  for (const cwd of [root, join(root, 'src'), join(root, 'src', 'cli')]) expect(defaultDataDir(cwd)).toBe(join(root, 'data'))
})

test("elsewhere (another package's folder, or none) it is ./data, beside where it runs", () => {
  const other = join(root, 'other')
  mkdirSync(other, { recursive: true })
  writeFileSync(join(other, 'package.json'), JSON.stringify({ name: 'my-app' }))
  // The nearest package.json is another's, but the checkout above it still counts.
  expect(defaultDataDir(other)).toBe(join(root, 'data'))
  expect(defaultDataDir(tmpdir())).toBe('./data')
})
