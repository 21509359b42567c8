import { escapeHtml } from '../../lib/html.ts'
import { frame } from './doc-layout.ts'
import { DOCS_ROUTE, type DocFolder, type DocPage } from './doc-pages.ts'
import { docHtml } from './doc-html.ts'
import { normalizedQuery, searchDocs, type LineMatch } from './doc-search.ts'

/** The HTML of each kind of answer under /docs: a page, a folder's list, the search's results, not found. */

export const pageView = (page: DocPage) => frame({ title: page.title, route: page.route, body: docHtml(page.path, page.text) })

export function folderView(folder: DocFolder): string {
  const items = folder.pages.map((page) => `<li><a href="${escapeHtml(page.route)}">${escapeHtml(page.title)}</a></li>`).join('\n')
  return frame({ title: folder.title, route: folder.route, body: `<h1>${escapeHtml(folder.title)}</h1>\n<ul>\n${items}\n</ul>` })
}

export const notFoundView = (path: string) =>
  frame({
    title: 'Not found',
    route: '',
    body: `<h1>Not found</h1>\n<p>No page of the documentation is at ${escapeHtml(path)}. The list of pages is beside this, and the search above.</p>`,
  })

/** How many lines of one page the results show; the rest are counted. */
const LINES_SHOWN = 8

/** A line with each occurrence of `needle` marked, the rest escaped. */
function marked(line: string, needle: string): string {
  const text = line.replace(/\s+/g, ' ')
  const lower = text.toLowerCase()
  let out = ''
  let from = 0
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    out += `${escapeHtml(text.slice(from, at))}<mark>${escapeHtml(text.slice(at, at + needle.length))}</mark>`
    from = at + needle.length
  }
  return out + escapeHtml(text.slice(from))
}

export function searchView(query: string): string {
  const needle = normalizedQuery(query)
  const results = searchDocs(needle)
  const line = (route: string, match: LineMatch) =>
    `<li><a href="${escapeHtml(match.anchor ? `${route}#${match.anchor}` : route)}">${marked(match.line, needle.toLowerCase())}</a></li>`
  const pages = results.map(({ page, lines }) => {
    const more = lines.length > LINES_SHOWN ? `<li>and ${lines.length - LINES_SHOWN} more lines</li>` : ''
    return `<li><a href="${escapeHtml(page.route)}">${escapeHtml(page.title)}</a> (${lines.length} ${lines.length === 1 ? 'line' : 'lines'})\n<ol>\n${lines
      .slice(0, LINES_SHOWN)
      .map((match) => line(page.route, match))
      .join('\n')}${more}\n</ol></li>`
  })
  const summary =
    needle === ''
      ? '<p>Type a word or a phrase to find the pages that hold it.</p>'
      : results.length === 0
        ? `<p>No page holds “${escapeHtml(needle)}”.</p>`
        : `<p>${results.length} ${results.length === 1 ? 'page holds' : 'pages hold'} “${escapeHtml(needle)}”.</p>\n<ul class="results">\n${pages.join('\n')}\n</ul>`
  return frame({ title: needle === '' ? 'Search' : `Search: ${needle}`, route: `${DOCS_ROUTE}/search`, body: `<h1>Search</h1>\n${summary}`, query: needle })
}
