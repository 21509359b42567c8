const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

/** a, b, ..., z, aa, ab, ...: the n-th suffix. */
const suffix = (n: number): string => (n < 26 ? LETTERS[n]! : suffix(Math.floor(n / 26) - 1) + LETTERS[n % 26])

/**
 * A DKIM selector that names the month its key was made (ms202611a) and is not among `taken`:
 * keys of the same domain name in other projects, or earlier keys, keep their own records.
 */
export function nextSelector(taken: ReadonlySet<string>, now: number): string {
  const date = new Date(now)
  const month = `${date.getUTCFullYear()}${String(date.getUTCMonth() + 1).padStart(2, '0')}`
  for (let n = 0; ; n++) {
    const selector = `ms${month}${suffix(n)}`
    if (!taken.has(selector)) return selector
  }
}
