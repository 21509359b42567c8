import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mailsteadChild } from '../helpers/cli-child.ts'

/** A folder that is a Mailstead checkout as far as the data directory goes: its package.json and a src/. */
function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'mailstead-checkout-'))
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'mailstead' }))
  mkdirSync(join(root, 'src', 'cli'), { recursive: true })
  roots.push(root)
  return root
}
const roots: string[] = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

test('the CLI run from src/ uses the data directory at the root of the checkout, as npm start does', async () => {
  const root = checkout()
  const made = await mailsteadChild(['project', 'create', '--name', 'Shop', '--json'], {}, root)
  expect(made.code).toBe(0)
  for (const cwd of [join(root, 'src'), join(root, 'src', 'cli')]) {
    const listed = await mailsteadChild(['project', 'list', '--json'], {}, cwd)
    expect(JSON.parse(listed.out).map((p: { name: string }) => p.name)).toEqual(['Shop'])
  }
})

test('a list that finds nothing names the data directory it looked in', async () => {
  const root = checkout()
  const listed = await mailsteadChild(['project', 'list'], {}, join(root, 'src'))
  expect(listed).toMatchObject({ code: 0, out: `No projects yet in the data directory ${join(root, 'data')}: mailstead project create --name NAME` })
  const accounts = await mailsteadChild(['user', 'list'], {}, root)
  expect(accounts.out).toStartWith(`No accounts yet in the data directory ${join(root, 'data')}`)
})
