import { Marked } from 'marked'
import sanitizeHtml from 'sanitize-html'

/** The body types a send takes: HTML as given, or Markdown rendered to HTML first. */
export const BODY_TYPES = ['html', 'markdown'] as const
export type BodyType = (typeof BODY_TYPES)[number]

// One instance with its own options, so nothing else that uses marked changes how bodies render.
const markdown = new Marked({ async: false, gfm: true })

// marked percent-encodes link and image addresses, which turns `{{url}}` into `%7B%7Burl%7D%7D`:
// placeholders are given back their braces, so that they are filled as they are in an HTML body.
const ENCODED_PLACEHOLDER = /%7B%7B((?:(?!%7D%7D)[^"'\s<>])*)%7D%7D/gi

/**
 * What raw HTML a Markdown body may carry: the formatting Markdown itself makes, and the plain
 * layout tags people mix into it. Scripts, styles, frames, forms, event handlers and `javascript:`
 * addresses are taken out (a script's code with its tag); other tags are dropped, their text kept.
 * The documentation the server shows (src/http/docs/) is made safe by the same rule.
 */
export const MARKDOWN_HTML: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'pre', 'code', 'em', 'strong', 'del', 's', 'b', 'i', 'u', 'sub', 'sup',
    'a', 'img', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'span', 'center', 'small', 'input',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'name', 'target'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    input: ['type', 'checked', 'disabled'],
    '*': ['class', 'id', 'align', 'style', 'dir', 'lang'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel', 'cid'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
}

/**
 * The HTML of a Markdown body, made safe: Markdown lets raw HTML through, and this is the one body
 * a sender writes as text rather than as markup, so what that HTML may do is limited
 * (MARKDOWN_HTML). The result goes the way of an HTML body from here (placeholders, tracking,
 * text part). An HTML body is sent as given: it is the sender's own markup, where Outlook's
 * conditional comments and `<style>` must survive.
 */
export function markdownToHtml(body: string): string {
  const html = sanitizeHtml(markdown.parse(body) as string, MARKDOWN_HTML)
  return html.replace(ENCODED_PLACEHOLDER, (whole, inner: string) => {
    try {
      return `{{${decodeURIComponent(inner)}}}`
    } catch {
      return whole
    }
  })
}

/** The HTML of a body of either type. */
export const htmlOfBody = (body: string, type: BodyType = 'html'): string => (type === 'markdown' ? markdownToHtml(body) : body)
