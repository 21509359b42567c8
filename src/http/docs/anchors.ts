/**
 * The anchor GitHub gives a heading (github-slugger): the text as rendered (links by their text,
 * emphasis and code marks dropped), lower-cased, every character but letters, digits, `_`, `-` and
 * spaces removed, each space made a hyphen. The served pages give their headings these ids, so a
 * link written for GitHub (`page.md#anchor`) finds its heading here too.
 */
export function slug(heading: string): string {
  const rendered = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '')
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** Anchors for a page's headings in order: a repeated one gets -1, -2, ... as on GitHub. */
export function anchorCounter(): (heading: string) => string {
  const seen = new Map<string, number>()
  return (heading) => {
    const base = slug(heading)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    return count === 0 ? base : `${base}-${count}`
  }
}
