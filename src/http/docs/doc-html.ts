import { Marked, type Tokens } from 'marked'
import sanitizeHtml from 'sanitize-html'
import { MARKDOWN_HTML } from '../../core/emails/markdown.ts'
import { escapeHtml } from '../../lib/html.ts'
import { anchorCounter } from './anchors.ts'
import { linkRoute } from './doc-pages.ts'

/**
 * A page of the documentation as HTML, with marked, the library that renders mail's Markdown
 * bodies, and made safe by the same rule (MARKDOWN_HTML): the pages are the repository's own, but
 * a page shown by the server is held to what a sender's Markdown may carry. Headings get GitHub's
 * anchors as ids; links between pages lead to their routes under /docs, and a link to a file the
 * server does not carry keeps only its text. A code block or a table may scroll sideways (a long
 * line, a phone): it takes the keyboard's focus, so that it can be scrolled without a mouse.
 */
export function docHtml(path: string, text: string): string {
  const anchor = anchorCounter()
  const markdown = new Marked({
    async: false,
    gfm: true,
    renderer: {
      heading({ tokens, depth, text: raw }: Tokens.Heading) {
        return `<h${depth} id="${escapeHtml(anchor(raw))}">${this.parser.parseInline(tokens)}</h${depth}>\n`
      },
      link({ href, title, tokens }: Tokens.Link) {
        const inner = this.parser.parseInline(tokens)
        const target = /^[a-z][a-z0-9+.-]*:/i.test(href) ? href : linkRoute(path, href)
        if (target === undefined) return inner
        return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${inner}</a>`
      },
    },
  })
  // Added after the sanitizer, which keeps no tabindex: a fixed attribute on an element it let through.
  return sanitizeHtml(markdown.parse(text) as string, MARKDOWN_HTML).replace(/<(pre|table)>/g, '<$1 tabindex="0">')
}
