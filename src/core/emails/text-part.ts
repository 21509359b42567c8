import { compile, type DomNode, type FormatCallback } from 'html-to-text'

const textContent = (node: DomNode): string => (node.type === 'text' ? (node.data ?? '') : (node.children ?? []).map(textContent).join(''))

/**
 * A mailto link as its address alone: the query (subject=, body=) is for a mail program, and
 * neither a reader nor a filter reads it as an address. Written once, after the link's words
 * unless they are the address already.
 */
const mailto: FormatCallback = (elem, walk, builder) => {
  const href = String(elem.attribs?.href ?? '').slice('mailto:'.length)
  let address = href.split('?')[0]!
  try {
    address = decodeURIComponent(address)
  } catch {}
  address = /<([^<>]+)>/.exec(address)?.[1] ?? address
  walk(elem.children, builder)
  if (address && textContent(elem).trim().toLowerCase() !== address.toLowerCase()) builder.addInline(` [${address}]`)
}

const ROW_GROUPS = new Set(['thead', 'tbody', 'tfoot'])

/** The cells of a table's own rows, in order (not those of tables inside them). */
function cellsOf(node: DomNode): DomNode[] {
  return (node.children ?? []).flatMap((child) => {
    if (child.type !== 'tag') return []
    if (ROW_GROUPS.has(child.name!) || child.name === 'tr') return cellsOf(child)
    return child.name === 'td' || child.name === 'th' ? [child] : []
  })
}

/** A table that only lays the letter out (role=presentation): each cell a paragraph of its own. */
const layoutTable: FormatCallback = (elem, walk, builder) => {
  for (const cell of cellsOf(elem)) {
    builder.openBlock({ leadingLineBreaks: 1 })
    walk(cell.children, builder)
    builder.closeBlock({ trailingLineBreaks: 1 })
  }
}

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }))

/**
 * The plain-text part of an HTML body, for mail sent with HTML alone. It names the links the HTML
 * has, each once (filters such as rspamd compare the two parts' links), keeps headings as they
 * are written, lays data tables out in columns and layout tables as blocks, and leaves out what
 * the HTML hides (the preview text of a newsletter). 72 columns: quoted-printable never has to
 * break a line. Compiled once: compiling the options is most of the cost of converting a message.
 */
export const textFromHtml = compile({
  wordwrap: 72,
  formatters: { mailto, layoutTable },
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: '[style*="display:none"]', format: 'skip' },
    { selector: '[style*="display: none"]', format: 'skip' },
    { selector: '[hidden]', format: 'skip' },
    ...HEADINGS,
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'a[href^="mailto:"]', format: 'mailto' },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    { selector: 'table[role=presentation]', format: 'layoutTable' },
  ],
})
