import { describe, expect, test } from 'bun:test'
import { DEFAULT_HEAP_MB, heapRamBytes, sameCommand } from './heap.ts'

const GB = 1024 ** 3
const MB = 1024 ** 2

describe('the heap of serve', () => {
  test('is sized by the default, not by a large machine\'s RAM', () => {
    expect(heapRamBytes({}, 24 * GB)).toBe(DEFAULT_HEAP_MB * MB)
  })

  test('MAILSTEAD_HEAP_MB sets it; os leaves it to Bun; a machine smaller than it is left alone', () => {
    expect(heapRamBytes({ MAILSTEAD_HEAP_MB: '2048' }, 24 * GB)).toBe(2048 * MB)
    expect(heapRamBytes({ MAILSTEAD_HEAP_MB: 'os' }, 24 * GB)).toBeUndefined()
    expect(heapRamBytes({}, 256 * MB)).toBeUndefined()
  })

  test('BUN_JSC_forceRAMSize set by hand (or by the exec that applied the default) wins', () => {
    expect(heapRamBytes({ BUN_JSC_forceRAMSize: '1073741824', MAILSTEAD_HEAP_MB: '256' }, 24 * GB)).toBeUndefined()
  })

  test.each(['lots', '12.5', '10', '-1'])('refuses MAILSTEAD_HEAP_MB=%s', (value) => {
    expect(() => heapRamBytes({ MAILSTEAD_HEAP_MB: value }, 24 * GB)).toThrow('MAILSTEAD_HEAP_MB')
  })

  test('runs the same command again: from source with Bun\'s flags and the script, compiled with its arguments alone', () => {
    expect(sameCommand(['/bun', '/app/src/main.ts', 'serve', '--http-port', '1'], ['--cpu-prof'], false)).toEqual(['--cpu-prof', '/app/src/main.ts', 'serve', '--http-port', '1'])
    expect(sameCommand(['bun', '/$bunfs/root/mailstead', 'serve'], [], true)).toEqual(['serve'])
  })
})
