import { expect, test } from 'bun:test'
import { parseThemeChoice, readThemeChoice, THEME_KEY } from './theme.ts'

test('a stored theme is light or dark; anything else, or nothing, follows the system', () => {
  expect(parseThemeChoice('light')).toBe('light')
  expect(parseThemeChoice('dark')).toBe('dark')
  expect(parseThemeChoice('purple')).toBe('system')
  expect(parseThemeChoice(null)).toBe('system')
})

test('a storage that throws (a private window) reads as the system theme', () => {
  expect(readThemeChoice({ getItem: () => { throw new Error('denied') } })).toBe('system')
  expect(readThemeChoice({ getItem: (key) => (key === THEME_KEY ? 'dark' : null) })).toBe('dark')
})
