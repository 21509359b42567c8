import { Marked } from 'marked'

/** The body types a send takes: HTML as given, or Markdown rendered to HTML first. */
export const BODY_TYPES = ['html', 'markdown'] as const
export type BodyType = (typeof BODY_TYPES)[number]

// One instance with its own options, so nothing else that uses marked changes how bodies render.
const markdown = new Marked({ async: false, gfm: true })

// marked percent-encodes link and image addresses, which turns `{{url}}` into `%7B%7Burl%7D%7D`:
// placeholders are given back their braces, so that they are filled as they are in an HTML body.
const ENCODED_PLACEHOLDER = /%7B%7B((?:(?!%7D%7D)[^"'\s<>])*)%7D%7D/gi

/**
 * The HTML of a Markdown body. Raw HTML in it is kept as Markdown keeps it, so the result is an
 * HTML body like any other and goes the same way from here (placeholders, tracking, text part).
 */
export function markdownToHtml(body: string): string {
  const html = markdown.parse(body) as string
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
