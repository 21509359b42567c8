import { describe, expect, test } from 'bun:test'
import { pixelCostsPoints, visibleTextBytes } from './pixel-cost.ts'

describe('visibleTextBytes', () => {
  test('counts what a reader sees: no tags, head, styles, scripts or comments; entities decoded; white space collapsed', () => {
    const html = '<html><head><title>T</title><style>p{color:red}</style></head><body><!-- note --><p>Grüße &amp;\n\n  bye</p><script>x()</script></body></html>'
    expect(visibleTextBytes(html)).toBe(Buffer.byteLength('Grüße & bye'))
  })
})

describe('pixelCostsPoints', () => {
  test.each([
    ['short HTML without images', '<p>Hi</p>', true],
    ['3,200 bytes of text', `<p>${'x'.repeat(3200)}</p>`, true],
    ['3,201 bytes of text', `<p>${'x'.repeat(3201)}</p>`, false],
    ['HTML with an image of its own', '<p>Hi</p><IMG src="https://example.com/a.png">', false],
  ])('%s: %p', (_, html, costs) => {
    expect(pixelCostsPoints(html)).toBe(costs)
  })
})
