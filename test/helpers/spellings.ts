/**
 * Other spellings of one request path, as an attacker would try them against an access check that
 * compares strings: each names the same resource to a lenient reader of URLs.
 * `routes` is true where Elysia's router takes the spelling for the same route (it then must get
 * the plain path's answer); the others it does not route at all (then a 404 for every caller).
 */
export interface Spelling {
  name: string
  path: string
  routes: boolean
}

/** `%XX` for the first letter of the path's first fixed segment: /%61pi/v1/keys. */
const encodeFirstLetter = (path: string) => path.replace(/[a-z]/i, (letter) => `%${letter.charCodeAt(0).toString(16).toUpperCase()}`)

/** The last slash doubled: /api/v1//project, /contacts//x. */
const doubleLastSlash = (path: string) => `${path.slice(0, path.lastIndexOf('/'))}/${path.slice(path.lastIndexOf('/'))}`

export function spellingsOf(path: string, paramValue?: string): Spelling[] {
  const spellings: Spelling[] = [
    { name: 'trailing slash', path: `${path}/`, routes: true },
    // The URL parser reads /%2e as a dot segment: the path as the router sees it ends in a slash.
    { name: 'encoded dot segment', path: `${path}/%2e`, routes: true },
    { name: 'doubled trailing slash', path: `${path}//`, routes: false },
    { name: 'doubled slash', path: doubleLastSlash(path), routes: false },
    { name: 'percent-encoded letter', path: encodeFirstLetter(path), routes: false },
    { name: 'upper case', path: path.toUpperCase(), routes: false },
  ]
  // A parameter's value percent-encoded is the same value once the router decodes it.
  if (paramValue && path.includes(`/${paramValue}`)) {
    spellings.push({ name: 'percent-encoded parameter', path: path.replace(`/${paramValue}`, `/${encodeFirstLetter(paramValue)}`), routes: true })
  }
  return spellings
}
