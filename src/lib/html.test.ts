import { expect, test } from 'bun:test'
import { escapeHtml } from './html.ts'

test('escapes the five characters that matter in content and quoted attributes, and nothing else', () => {
  expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;')
  expect(escapeHtml('plain café ✓')).toBe('plain café ✓')
  expect(escapeHtml('&amp;')).toBe('&amp;amp;')
})
