import { escapeHtml } from '../../lib/html.ts'
import { DOCS_ROUTE, DOC_FOLDERS } from './doc-pages.ts'

/*
 * The frame around every page of the served documentation: a header with the search form, a nav
 * of every page, and the page. No script at all (the policy forbids it), so the search is a plain
 * GET form; the one stylesheet is a file of its own (STYLESHEET), light or dark as the reader's
 * system prefers.
 */

/** No script, nothing from elsewhere, styles from this server only, never framed; forms go to this server. */
export const DOCS_HEADERS = {
  'content-security-policy': ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"].join('; '),
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const

export const STYLESHEET_ROUTE = `${DOCS_ROUTE}/style.css`

export const STYLESHEET = `:root { color-scheme: light dark; --bg: #fff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --code: #f6f8fa; --link: #0969da; --mark: #fff8c5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --code: #151b23; --link: #4493f8; --mark: #5c4d00; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--link); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); }
header .name { font-weight: 600; color: var(--fg); text-decoration: none; }
header form { display: flex; gap: .5rem; margin-left: auto; }
input, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .25rem .625rem; }
button { cursor: pointer; }
.layout { display: flex; align-items: flex-start; }
/* The page comes first (on a phone, before the list of pages); on a wide screen the list stands at its left. */
nav { order: -1; flex: 0 0 16rem; padding: 1rem 1.5rem; font-size: .9rem; border-right: 1px solid var(--line); }
nav h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .25rem; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav li { margin: .125rem 0; }
nav a[aria-current="page"] { font-weight: 600; color: var(--fg); }
main { flex: 1; min-width: 0; max-width: 56rem; padding: 1rem 2rem 4rem; }
h1, h2, h3 { line-height: 1.25; margin: 1.5em 0 .5em; }
h1 { font-size: 2rem; border-bottom: 1px solid var(--line); padding-bottom: .3em; }
h2 { font-size: 1.5rem; border-bottom: 1px solid var(--line); padding-bottom: .3em; }
code, pre { font: .875em/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); border-radius: 6px; }
code { padding: .1em .3em; }
pre { padding: 1rem; overflow: auto; }
pre:focus-visible, table:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; display: block; overflow: auto; margin: 1rem 0; }
th, td { border: 1px solid var(--line); padding: .375rem .75rem; vertical-align: top; }
blockquote { margin: 0; padding: 0 1rem; color: var(--muted); border-left: 4px solid var(--line); }
/* The page's text colour on the mark, a link's too: the link colour on the dark mark is too faint. */
mark { background: var(--mark); color: var(--fg); }
.results li { margin: 0 0 1rem; }
.results ol { list-style: none; padding-left: 1rem; font-size: .9rem; }
@media (max-width: 48rem) { .layout { display: block; } nav { border-right: 0; border-top: 1px solid var(--line); } main { padding: 1rem; } }
`

/** The nav of every page, the current one marked. */
function nav(current: string): string {
  const link = (route: string, title: string) =>
    `<li><a href="${escapeHtml(route)}"${route === current ? ' aria-current="page"' : ''}>${escapeHtml(title)}</a></li>`
  return DOC_FOLDERS.map(
    (folder) => `<h2>${escapeHtml(folder.title)}</h2>\n<ul>\n${folder.pages.map((page) => link(page.route, page.title)).join('\n')}\n</ul>`,
  ).join('\n')
}

/** A whole page: `body` is HTML made safe by its caller; `query` fills the search box. */
export function frame(options: { title: string; route: string; body: string; query?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · Mailstead docs</title>
<link rel="stylesheet" href="${STYLESHEET_ROUTE}">
</head>
<body>
<header>
<a class="name" href="${DOCS_ROUTE}">Mailstead documentation</a>
<a href="/swagger">API document</a>
<a href="/console/">Console</a>
<form method="get" action="${DOCS_ROUTE}/search" role="search">
<input type="search" name="q" aria-label="Search the documentation" placeholder="Search the docs" value="${escapeHtml(options.query ?? '')}">
<button type="submit">Search</button>
</form>
</header>
<div class="layout">
<main>
${options.body}
</main>
<nav aria-label="Pages">
${nav(options.route)}
</nav>
</div>
</body>
</html>
`
}
