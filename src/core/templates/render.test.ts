import { describe, expect, test } from 'bun:test'
import { render } from './render.ts'

const values = { name: 'Ada', plan: 'pro', count: 3, yes: false, data: { firstName: 'Ada', address: { city: 'London' } }, email: 'ada@example.com', empty: '', nothing: null, html: '<b>"x" & y</b>' }

describe('render', () => {
  test.each([
    ['Hi {{name}}!', 'Hi Ada!'],
    ['Hi {{ name }}!', 'Hi Ada!'],
    ['{{data.firstName}} from {{data.address.city}}', 'Ada from London'],
    ['{{count}} {{yes}}', '3 false'],
    ['Hi {{missing}}!', 'Hi !'],
    ['Hi {{missing ?? there}}!', 'Hi there!'],
    ['Hi {{missing ?? "dear friend"}}!', 'Hi dear friend!'],
    ["Hi {{missing ?? 'x'}}!", 'Hi x!'],
    ['Hi {{data.lastName ?? "there"}}', 'Hi there'],
    ['{{empty ?? fallback}} {{nothing ?? null}}', 'fallback null'],
    ['{{data}}', ''],
    ['{{ not a placeholder }} {name}', '{{ not a placeholder }} {name}'],
  ])('%s -> %s', (template, expected) => {
    expect(render(template, values, { html: false })).toBe(expected)
  })

  test('escapes values and fallbacks in HTML, not in text', () => {
    expect(render('<p>{{html}}</p>', values, { html: true })).toBe('<p>&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;</p>')
    expect(render('{{missing ?? "<i>"}}', values, { html: true })).toBe('&lt;i&gt;')
    expect(render('{{html}}', values, { html: false })).toBe('<b>"x" & y</b>')
  })
})
