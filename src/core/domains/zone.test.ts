import { describe, expect, test } from 'bun:test'
import { txtStrings, zoneLines } from './zone.ts'

describe('zone lines', () => {
  test('long TXT values are split into strings of at most 255 characters', () => {
    const value = 'a'.repeat(300)
    expect(txtStrings(value)).toBe(`"${'a'.repeat(255)}" "${'a'.repeat(45)}"`)
  })

  test('quotes and backslashes are escaped', () => {
    expect(txtStrings('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"')
  })

  test('MX lines carry the priority and a fully qualified host', () => {
    expect(zoneLines([{ kind: 'return-path-mx', type: 'MX', name: 'mst.example.com', value: 'mx.host.example', priority: 10, required: true }])).toEqual([
      'mst.example.com. 3600 IN MX 10 mx.host.example.',
    ])
  })
})
