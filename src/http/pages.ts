import { escapeHtml } from '../lib/html.ts'

/** What the few HTML pages of the API (opened from mail, not by apps) are made of. */

export interface Page {
  title: string
  /** Paragraphs of plain text: escaped here. */
  lines: string[]
  /** A button that POSTs to `action`, with the fields to fill above it; no other way of changing anything is offered. */
  form?: PageForm
  /** More than one form, one under the other; the later ones' buttons are drawn as secondary. */
  forms?: PageForm[]
  /** The accent of its button and links (a project's colour, #rrggbb); dark grey without one. */
  accent?: string
  /** The project's name, above the title. */
  project?: string
}

export interface PageForm {
  action: string
  label: string
  fields?: PageField[]
  hidden?: Record<string, string>
  /** Words above the form's fields. */
  legend?: string
}

/**
 * A field of a page's form. `trap` is a honeypot: off screen, out of the tab order and hidden from
 * assistive technology, so only a robot fills it.
 */
export interface PageField {
  name: string
  label: string
  type: 'email' | 'text' | 'checkbox'
  required?: boolean
  checked?: boolean
  value?: string
  trap?: boolean
}

const STYLE = `
  body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center;
    background: #f4f4f5; color: #18181b; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { max-width: 28rem; margin: 1rem; padding: 2rem; background: #fff; border-radius: 12px;
    box-shadow: 0 1px 3px rgba(0, 0, 0, .1); }
  h1 { margin: 0 0 1rem; font-size: 1.375rem; }
  p { margin: 0 0 1rem; color: #3f3f46; word-wrap: break-word; }
  button { font: inherit; padding: .625rem 1.25rem; border: 0; border-radius: 8px; background: var(--accent); color: #fff; cursor: pointer; }
  button:hover, button:focus { filter: brightness(1.15); }
  button.secondary { background: transparent; color: #3f3f46; border: 1px solid #a1a1aa; }
  form + form { margin-top: 1.5rem; padding-top: 1.5rem; border-top: 1px solid #e4e4e7; }
  .project { margin: 0 0 .25rem; font-size: .8125rem; font-weight: 600; letter-spacing: .02em; color: var(--accent); }
  label { display: block; margin: 0 0 1rem; font-size: .875rem; font-weight: 600; color: #27272a; }
  label input[type=email], label input[type=text] { display: block; box-sizing: border-box; width: 100%; margin-top: .375rem;
    padding: .5rem .75rem; font: inherit; font-weight: 400; border: 1px solid #a1a1aa; border-radius: 8px; }
  label.check { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
  .trap { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }`

const ACCENT = /^#[0-9a-f]{6}$/i

function formHtml(form: PageForm, secondary: boolean): string {
  const legend = form.legend ? `<p>${escapeHtml(form.legend)}</p>` : ''
  const fields = (form.fields ?? []).map(fieldHtml)
  const hidden = Object.entries(form.hidden ?? {}).map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
  const button = `<button type="submit"${secondary ? ' class="secondary"' : ''}>${escapeHtml(form.label)}</button>`
  return `<form method="post" action="${escapeHtml(form.action)}">${legend}${[...fields, ...hidden].join('')}${button}</form>`
}

function fieldHtml(field: PageField): string {
  const name = escapeHtml(field.name)
  const label = escapeHtml(field.label)
  if (field.trap) return `<div class="trap" aria-hidden="true"><label>${label} <input name="${name}" type="text" tabindex="-1" autocomplete="off"></label></div>`
  if (field.type === 'checkbox') {
    return `<label class="check"><input name="${name}" type="checkbox" value="${escapeHtml(field.value ?? 'on')}"${field.checked ? ' checked' : ''}> ${label}</label>`
  }
  const autocomplete = field.type === 'email' ? ' autocomplete="email"' : ''
  return `<label>${label}${field.required ? '' : ' (optional)'} <input name="${name}" type="${field.type}"${autocomplete}${field.required ? ' required' : ''}></label>`
}

/** A whole page, self-contained: no script, no outside assets, every text escaped. */
export function renderPage(page: Page): string {
  const lines = page.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n    ')
  const form = (page.forms ?? (page.form ? [page.form] : [])).map((each, i) => formHtml(each, i > 0)).join('\n    ')
  const accent = page.accent && ACCENT.test(page.accent) ? page.accent : '#18181b'
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex, nofollow">
  <title>${escapeHtml(page.title)}</title>
  <style>:root { --accent: ${accent}; }${STYLE}</style>
</head>
<body>
  <main>
    ${page.project ? `<p class="project">${escapeHtml(page.project)}</p>` : ''}<h1>${escapeHtml(page.title)}</h1>
    ${lines}
    ${form}
  </main>
</body>
</html>
`
}

/** What a page shows of its project: its name above the title, its colour on the buttons. */
export type Brand = Pick<Page, 'project' | 'accent'>

export const projectBrand = (project: { name: string; brandColor: string | null }): Brand => ({ project: project.name, ...(project.brandColor && { accent: project.brandColor }) })

/**
 * Headers of a page: nothing cached (it shows someone's subscription), no framing (a framed
 * button could be clicked by trickery), no referrer (the URL holds a token), nothing loaded.
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
} as const

/** Elysia's response settings, as far as a page needs them. */
export interface ResponseSet {
  status?: number | string
  headers: Record<string, unknown>
}

/** Answers a page with its status and headers. */
export function answerPage(set: ResponseSet, status: number, html: string): string {
  set.status = status
  Object.assign(set.headers, PAGE_HEADERS)
  return html
}

export const invalidLinkPage = renderPage({
  title: 'This link is not valid',
  lines: ['The link may have been cut short or changed on its way. Open it again from the email, whole.'],
})
