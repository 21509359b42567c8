import { describe, expect, test } from 'bun:test'
import { looksRandom } from './random-input.ts'

describe('looksRandom', () => {
  test.each([
    'jane',
    'john.smith',
    'maria.garcia',
    'j.doe1985',
    'priya.ramanathan',
    'zhang.xiaoming',
    'nguyen.van.an',
    'jean-pierre.dupont',
    'a.kowalski',
    'schwarzenegger',
    'hirschfeld',
    'mcdonald',
    'oconnor',
    'liberty.doherty',
    'anna-lena_mueller',
    'info',
    'support',
    'noreply',
    'sales+2024',
    'ahmed.elsayed',
    'siobhan.ohalloran',
    'krzysztof',
    'tomasz.wojcik',
    'kim.minjun',
    'olusegun.adeyemi',
    'thorsten',
    'yvonne',
    'bob2',
    'team-berlin',
    'christopher99',
  ])('%s reads as a person or a role', (local) => {
    expect(looksRandom(local)).toBe(false)
  })

  test.each([
    'xkqzvbwtp',
    'qwrtplkjh',
    'zxcvbnm',
    'asdfgh',
    'asdf',
    'qwer',
    'poiuytr',
    'hjklhjkl',
    'a8f3k2j9',
    'x7y2z9w4',
    'd41d8cd98f00b204e980',
    'bcdfghjk',
    'vxqwmzt.plkr',
  ])('%s reads as random input', (local) => {
    expect(looksRandom(local)).toBe(true)
  })

  test('most strings of random letters are caught', () => {
    // mulberry32: a small seeded generator, so the test sees the same strings every run.
    let seed = 42
    const next = () => {
      seed = (seed + 0x6d2b79f5) | 0
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
    const words = Array.from({ length: 1000 }, () =>
      Array.from({ length: 10 }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(next() * 26)]).join(''),
    )
    expect(words.filter(looksRandom).length / words.length).toBeGreaterThan(0.7)
  })
})
