import { describe, expect, test } from 'bun:test'

/*
 * An IPv6 client has a /64 to itself, 2^64 addresses: the SMTP listeners count it by its /64, as
 * the HTTP API does. Run in a network namespace (`unshare -n`) where loopback owns two /64s.
 */

const ROUTES = ['ip link set lo up', 'ip -6 route add local 2001:db8:1:2::/64 dev lo', 'ip -6 route add local 2001:db8:1:3::/64 dev lo', 'sysctl -qw net.ipv6.ip_nonlocal_bind=1']
const isolated = Bun.spawnSync(['unshare', '-n', 'sh', '-c', ROUTES.join(' && ')], { stderr: 'pipe' })
const why = isolated.exitCode === 0 ? '' : ` (skipped: cannot make a network namespace here: ${isolated.stderr.toString().trim() || 'unshare failed'})`

describe('an IPv6 client that changes its address within its /64', () => {
  test.skipIf(isolated.exitCode !== 0)(`is one client to the per-address connection cap and to the login throttle${why}`, () => {
    const script = new URL('../helpers/ipv6-clients.ts', import.meta.url).pathname
    // On SQLite always: PostgreSQL is on the loopback of the namespace left behind, out of reach.
    const env = { ...process.env, MAILSTEAD_TEST_DATABASE: 'sqlite' }
    const run = Bun.spawnSync(['unshare', '-n', 'sh', '-c', `${ROUTES.join(' && ')} && exec "${process.execPath}" "${script}"`], { stderr: 'pipe', env })
    expect(run.exitCode).toBe(0)
    const result = JSON.parse(run.stdout.toString().trim().split('\n').at(-1)!)
    // The cap is 2: the third address of the /64 is refused, an address of another /64 is not.
    expect(result.greetings).toEqual(['220', '220', '421', '220'])
    expect(result.wrong).toEqual([false, false, false, false, false])
    // Five failures from five addresses of the /64: a login from a sixth waits 2 s; from another /64 it does not.
    expect(result.sameBlock.ok).toBe(true)
    expect(result.sameBlock.ms).toBeGreaterThanOrEqual(1800)
    expect(result.otherBlock.ok).toBe(true)
    expect(result.otherBlock.ms).toBeLessThan(1800)
  }, 30_000)
})
