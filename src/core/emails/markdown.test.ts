import { describe, expect, test } from 'bun:test'
import { htmlOfBody, markdownToHtml } from './markdown.ts'

describe('markdownToHtml', () => {
  test('headings, emphasis and lists become their HTML', () => {
    expect(markdownToHtml('# Hello\n\nSome *text*.\n\n- one\n- two')).toBe('<h1>Hello</h1>\n<p>Some <em>text</em>.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n')
  })

  test('placeholders in text and in link addresses are left for the template step', () => {
    expect(markdownToHtml('Hi {{name}}, [reset]({{data.url}}) ![x](https://cdn.example/{{data.id}}.png)')).toBe(
      '<p>Hi {{name}}, <a href="{{data.url}}">reset</a> <img src="https://cdn.example/{{data.id}}.png" alt="x" /></p>\n',
    )
  })

  test('a percent-encoded brace that is no placeholder stays encoded', () => {
    expect(markdownToHtml('[a](https://x.example/?q=%7Bz)')).toBe('<p><a href="https://x.example/?q=%7Bz">a</a></p>\n')
  })

  test('raw formatting HTML is kept as Markdown keeps it', () => {
    expect(markdownToHtml('<div class="x">Hi</div>\n\ntext <b>bold</b>')).toBe('<div class="x">Hi</div><p>text <b>bold</b></p>\n')
  })

  test('scripts, styles, frames, handlers and javascript: links in raw HTML are taken out; unknown tags leave their text', () => {
    const html = markdownToHtml('<script>steal()</script><style>p{}</style>\n\n<p onclick="x()">a</p>\n\n[b](javascript:x()) <iframe src="https://e.example"></iframe> <marquee>c</marquee>')
    expect(html).toBe('<p>a</p><p><a>b</a>  c</p>\n')
  })

  test('an HTML body is given back as it is', () => {
    expect(htmlOfBody('# not a heading')).toBe('# not a heading')
    expect(htmlOfBody('# a heading', 'markdown')).toBe('<h1>a heading</h1>\n')
  })
})
