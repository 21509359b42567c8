/** What is wrong with a parsed JSON value, and where: `data.tags[2]`, or '' for the value itself. */
export interface JsonFlaw {
  path: string
  problem: 'too-deep' | 'ill-formed'
}

/** A container on the way down: its place, for the path of a flaw, and the deepest container under it. */
interface Frame {
  value: object
  key: string | number | undefined
  parent: Frame | undefined
  depth: number
  deepest: number
}

/**
 * Levels (containers inside each other, itself the first) of objects already walked and found
 * well-formed: the objects that are fields of an object walked, so that a field checked again
 * (contact data in a request body) is answered without a second walk. Only those: remembering
 * every container would cost more than walking it again. Parsed bodies are not changed afterwards.
 */
const walked = new WeakMap<object, number>()

/**
 * The first flaw of a parsed JSON value: containers (objects and arrays) nested more than
 * `maxDepth` deep (`{}` is one level, `{"a":[]}` two), or a string or key that is not well-formed
 * Unicode (a lone UTF-16 surrogate, which JSON can spell `"\ud800"`). Walks with its own stack, so
 * no nesting, however deep, overflows the call stack here or tells anything that recurses later.
 * Paths are built only for a flaw found, from the chain of containers above it.
 */
export function findJsonFlaw(value: unknown, maxDepth: number): JsonFlaw | undefined {
  if (typeof value === 'object' && value !== null && (walked.get(value) ?? Infinity) <= maxDepth) return undefined
  // Parallel stacks of what is left to look at: a value, its key in its container, that container.
  const values: unknown[] = [value]
  const keys: Array<string | number | undefined> = [undefined]
  const parents: Array<Frame | undefined> = [undefined]
  // The container entered last whose walk may not be over; its parents up the chain are open too.
  let open: Frame | undefined
  while (values.length > 0) {
    const item = values.pop()
    const key = keys.pop()
    const parent = parents.pop()
    // Every container below `parent` entered so far has been walked whole.
    while (open !== parent) open = close(open!)
    if (typeof item === 'string') {
      if (!item.isWellFormed()) return { path: pathOf(parent, key), problem: 'ill-formed' }
      continue
    }
    if (item === null || typeof item !== 'object') continue
    const depth = parent ? parent.depth + 1 : 0
    if (depth === maxDepth) return { path: pathOf(parent, key), problem: 'too-deep' }
    open = { value: item, key, parent, depth, deepest: depth }
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) (values.push(item[i]), keys.push(i), parents.push(open))
      continue
    }
    const names = Object.keys(item)
    for (let i = names.length - 1; i >= 0; i--) {
      const name = names[i]!
      if (!name.isWellFormed()) return { path: pathOf(open, name), problem: 'ill-formed' }
      values.push((item as Record<string, unknown>)[name])
      keys.push(name)
      parents.push(open)
    }
  }
  while (open) open = close(open)
  return undefined
}

/** Ends a container's walk: its parent learns how deep it went, and an object's object field is remembered. */
function close(frame: Frame): Frame | undefined {
  const parent = frame.parent
  if (!parent) return undefined
  if (frame.deepest > parent.deepest) parent.deepest = frame.deepest
  if (frame.depth === 1 && typeof frame.key === 'string' && !Array.isArray(frame.value)) walked.set(frame.value, frame.deepest)
  return parent
}

/** `data.tags[1]`: the keys from the outermost container down to `key` in `parent`. */
function pathOf(parent: Frame | undefined, key: string | number | undefined): string {
  const parts: Array<string | number> = key === undefined ? [] : [key]
  for (let frame = parent; frame?.key !== undefined; frame = frame.parent) parts.push(frame.key)
  let path = ''
  for (const part of parts.reverse()) {
    if (typeof part === 'number') path += `[${part}]`
    else path += path ? `.${part.toWellFormed()}` : part.toWellFormed()
  }
  return path
}
