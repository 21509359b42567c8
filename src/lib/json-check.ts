/** What is wrong with a parsed JSON value, and where: `data.tags[2]`, or '' for the value itself. */
export interface JsonFlaw {
  path: string
  problem: 'too-deep' | 'ill-formed'
}

interface Pending {
  value: unknown
  path: string
  depth: number
}

const keyPath = (path: string, key: string) => (path ? `${path}.${key.toWellFormed()}` : key.toWellFormed())

/**
 * The first flaw of a parsed JSON value: containers (objects and arrays) nested more than
 * `maxDepth` deep (`{}` is one level, `{"a":[]}` two), or a string or key that is not well-formed
 * Unicode (a lone UTF-16 surrogate, which JSON can spell `"\ud800"`). Walks with its own stack, so
 * no nesting, however deep, overflows the call stack here or tells anything that recurses later.
 */
export function findJsonFlaw(value: unknown, maxDepth: number): JsonFlaw | undefined {
  const stack: Pending[] = [{ value, path: '', depth: 0 }]
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return { path, problem: 'ill-formed' }
      continue
    }
    if (value === null || typeof value !== 'object') continue
    if (depth === maxDepth) return { path, problem: 'too-deep' }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]`, depth: depth + 1 })
      continue
    }
    for (const [key, child] of Object.entries(value).reverse()) {
      if (!key.isWellFormed()) return { path: keyPath(path, key), problem: 'ill-formed' }
      stack.push({ value: child, path: keyPath(path, key), depth: depth + 1 })
    }
  }
  return undefined
}
