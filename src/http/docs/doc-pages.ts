import { posix } from 'node:path'
import { SOURCES } from './sources.ts'

/*
 * The documentation as the server shows it: each page of the repository (README.md and docs/) at
 * a route under /docs, its title, and the folders it is grouped in. README.md is /docs,
 * docs/features/sending.md is /docs/features/sending, a folder's README.md is the folder's route,
 * and a folder without one gets a list of its pages there.
 */

export interface DocPage {
  /** Its path in the repository, as links between pages name it. */
  path: string
  route: string
  title: string
  text: string
}

export interface DocFolder {
  /** Its path in the repository (`docs/features`); '' for README.md and the pages of docs/ itself. */
  path: string
  route: string
  title: string
  pages: DocPage[]
}

export const DOCS_ROUTE = '/docs'

/** Routes under /docs that are not pages: a page may never take one. */
export const RESERVED = new Set([`${DOCS_ROUTE}/search`, `${DOCS_ROUTE}/style.css`])

/** The route of a page of the repository. */
export function routeOf(path: string): string {
  const inside = path === 'README.md' ? '' : path.replace(/^docs\//, '').replace(/(^|\/)README\.md$/, '').replace(/\.md$/, '')
  return inside === '' ? DOCS_ROUTE : `${DOCS_ROUTE}/${inside}`
}

/** A page's title: its level-1 heading as it reads (links by their text, code and emphasis marks dropped). */
const titleOf = (text: string, path: string) => {
  const heading = /^# (.+)$/m.exec(text)?.[1]
  return heading ? heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, '').trim() : path
}

const folderTitle = (path: string) => (path === '' ? 'Mailstead' : path.replace(/^docs\//, '').replace(/^./, (c) => c.toUpperCase()))

export const DOC_PAGES: readonly DocPage[] = SOURCES.map(([path, text]) => ({ path, route: routeOf(path), title: titleOf(text, path), text }))

const folderOf = (path: string) => {
  const dir = posix.dirname(path)
  return dir === '.' || dir === 'docs' ? '' : dir
}

/** The pages by folder, in the nav's order: README.md and docs/ first, then each folder, its README.md first. */
export const DOC_FOLDERS: readonly DocFolder[] = (() => {
  const folders = new Map<string, DocPage[]>()
  for (const page of DOC_PAGES) folders.set(folderOf(page.path), [...(folders.get(folderOf(page.path)) ?? []), page])
  return [...folders].map(([path, pages]) => ({
    path,
    route: path === '' ? DOCS_ROUTE : `${DOCS_ROUTE}/${path.replace(/^docs\//, '')}`,
    title: folderTitle(path),
    pages: pages.sort((a, b) => Number(b.path.endsWith('README.md')) - Number(a.path.endsWith('README.md'))),
  }))
})()

const byRoute = new Map(DOC_PAGES.map((page) => [page.route, page]))
const byPath = new Map(DOC_PAGES.map((page) => [page.path, page]))
const folderByPath = new Map(DOC_FOLDERS.map((folder) => [folder.path, folder]))

/** What is at a route under /docs: a page, or a folder that has no README.md of its own (its list). */
export function docAt(route: string): DocPage | DocFolder | undefined {
  const page = byRoute.get(route)
  if (page) return page
  return DOC_FOLDERS.find((folder) => folder.path !== '' && folder.route === route)
}

/**
 * Where a relative link of `from` leads among the served pages (`../README.md`, `features/x.md#a`,
 * `decisions/`), as a route with its anchor; undefined for anything that is not a page or a
 * folder of pages (a file of the repository the server does not carry).
 */
export function linkRoute(from: string, href: string): string | undefined {
  const hash = href.indexOf('#')
  const [file, anchor] = hash < 0 ? [href, undefined] : [href.slice(0, hash), href.slice(hash + 1)]
  let path: string
  try {
    path = file === '' ? from : posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(file))).replace(/\/$/, '')
  } catch {
    return undefined
  }
  const route = byPath.get(path)?.route ?? byPath.get(`${path}/README.md`)?.route ?? folderByPath.get(path)?.route
  if (route === undefined) return undefined
  return anchor === undefined ? route : `${route}#${anchor}`
}
