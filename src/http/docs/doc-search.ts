import { anchorCounter } from './anchors.ts'
import { DOC_PAGES, type DocPage } from './doc-pages.ts'

/*
 * The documentation's search: the pages whose lines hold the query (case ignored, spaces as
 * written but runs of them as one), each with its matching lines and the heading each falls under.
 * The pages are few (a few hundred kilobytes), so a scan answers at once and needs no index.
 */

export interface LineMatch {
  line: string
  /** The anchor of the heading above the line; undefined before the first. */
  anchor: string | undefined
}

export interface PageMatch {
  page: DocPage
  lines: LineMatch[]
}

/** The longest query looked for: a longer one is cut, not refused. */
export const MAX_QUERY = 200

/** The query as it is looked for: trimmed, spaces made one, at most MAX_QUERY characters. */
export const normalizedQuery = (query: string) => query.replace(/\s+/g, ' ').trim().slice(0, MAX_QUERY)

function matchesOf(page: DocPage, needle: string): LineMatch[] {
  const anchor = anchorCounter()
  let current: string | undefined
  let fenced = false
  const found: LineMatch[] = []
  for (const line of page.text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6} (.+?)\s*#*\s*$/.exec(line)
    if (heading) current = anchor(heading[1]!)
    if (line.replace(/\s+/g, ' ').toLowerCase().includes(needle)) found.push({ line: line.trim(), anchor: current })
  }
  return found
}

/** The pages that hold `query`, those with the most matching lines first; none for an empty query. */
export function searchDocs(query: string): PageMatch[] {
  const needle = normalizedQuery(query).toLowerCase()
  if (needle === '') return []
  return DOC_PAGES.map((page) => ({ page, lines: matchesOf(page, needle) }))
    .filter((match) => match.lines.length > 0)
    .sort((a, b) => b.lines.length - a.lines.length)
}
