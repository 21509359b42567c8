import { expect, test } from 'bun:test'
import { browserName, groupedSecret } from './account-view.ts'

test('a session is named by its browser and system', () => {
  expect(browserName('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36')).toBe('Chrome on Linux')
  expect(browserName('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36 Edg/140.0')).toBe('Edge on Windows')
  expect(browserName('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5; rv:130.0) Gecko/20100101 Firefox/130.0')).toBe('Firefox on macOS')
  expect(browserName('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1')).toBe('Safari on iOS')
  expect(browserName('curl/8.5.0')).toBe('curl')
  expect(browserName(null)).toBe('Unknown client')
})

test('a secret is grouped by four', () => {
  expect(groupedSecret('ABCDEFGHIJ')).toBe('ABCD EFGH IJ')
  expect(groupedSecret('ABCDEFGH')).toBe('ABCD EFGH')
})
