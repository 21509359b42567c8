import { escapeHtml } from '../../lib/html.ts'

// {{ path }} or {{ path ?? fallback }}; the fallback may be "quoted", 'quoted' or bare text.
const PLACEHOLDER = /\{\{\s*([A-Za-z_$][\w$]*(?:\.[\w$]+)*)\s*(?:\?\?\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^}]*?))?\s*\}\}/g


function lookup(values: Record<string, unknown>, path: string): unknown {
  let value: unknown = values
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

function fallbackText(raw: string | undefined): string {
  if (raw === undefined) return ''
  const quoted = /^(["'])([\s\S]*)\1$/.exec(raw.trim())
  return quoted ? quoted[2]!.replace(/\\(.)/g, '$1') : raw.trim()
}

/**
 * Fills `{{name}}` and `{{name ?? fallback}}` from `values` (dots reach nested keys). A value that
 * is missing, null or empty gives the fallback, or nothing. In HTML, values and fallbacks are
 * escaped, so data cannot inject markup.
 */
export function render(template: string, values: Record<string, unknown>, options: { html: boolean }): string {
  return template.replace(PLACEHOLDER, (_, path: string, fallback: string | undefined) => {
    const value = lookup(values, path)
    const text =
      value === undefined || value === null || value === '' || typeof value === 'object' ? fallbackText(fallback) : String(value)
    return options.html ? escapeHtml(text) : text
  })
}
