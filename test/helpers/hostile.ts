/**
 * What an attacker sends where the API expects something sensible: values for each field of a
 * body, whole bodies, path and query parameters. Values are JSON text, so that nesting deeper than
 * JSON.stringify can build and numbers it would not write (1e999) can be sent.
 */

/** `depth` objects inside each other, as JSON text. */
export const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
export const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

const longString = (bytes: number) => JSON.stringify('x'.repeat(bytes))

/** Values put in place of one field of an otherwise sensible body. */
export const HOSTILE_VALUES: ReadonlyArray<readonly [string, string]> = [
  ['a lone high surrogate', '"a\\ud800b"'],
  ['a lone low surrogate in an address', '"jane\\udc00@example.net"'],
  ['surrogates in the wrong order', '"\\udc00\\ud800"'],
  ['a NUL and a header injection', '"x\\u0000\\r\\nBcc: evil@example.org"'],
  ['a 900 KB string', longString(900 * 1024)],
  ['a huge number', '1e308'],
  ['a number JSON.parse makes Infinity', '1e999'],
  ['a number past 2^53', '9007199254740993'],
  ['minus one', '-1'],
  ['minus zero', '-0'],
  ['a fraction', '0.5'],
  ['the string NaN', '"NaN"'],
  ['the string Infinity', '"Infinity"'],
  ['a hex string', '"0x10"'],
  ['an empty string', '""'],
  ['an array', '[]'],
  ['an array of objects', '[{}]'],
  ['an object', '{}'],
  ['null', 'null'],
  ['true', 'true'],
  ['a prototype-polluting object', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'],
  ['objects 33 deep', nestedObjects(33)],
  ['objects 2,000 deep', nestedObjects(2000)],
  ['arrays 2,000 deep', nestedArrays(2000)],
]

export interface RawBody {
  body?: string | Uint8Array
  contentType?: string
}

/** Whole bodies, each sent in place of the route's body. */
export const HOSTILE_BODIES: ReadonlyArray<readonly [string, RawBody]> = [
  ['no body', {}],
  ['an empty JSON body', { body: '', contentType: 'application/json' }],
  ['null', { body: 'null', contentType: 'application/json' }],
  ['an array', { body: '[]', contentType: 'application/json' }],
  ['a string', { body: '"hello"', contentType: 'application/json' }],
  ['a number', { body: '1e999', contentType: 'application/json' }],
  ['true', { body: 'true', contentType: 'application/json' }],
  ['NaN', { body: 'NaN', contentType: 'application/json' }],
  ['truncated JSON', { body: '{"email":', contentType: 'application/json' }],
  ['a duplicated key', { body: '{"a":1,"a":2}', contentType: 'application/json' }],
  ['a prototype-polluting body', { body: '{"__proto__":{"admin":true}}', contentType: 'application/json' }],
  ['arrays 100,000 deep', { body: nestedArrays(100_000), contentType: 'application/json' }],
  ['objects 100,000 deep', { body: nestedObjects(100_000), contentType: 'application/json' }],
  ['objects 65 deep', { body: nestedObjects(65), contentType: 'application/json' }],
  ['a lone surrogate as a key', { body: '{"\\ud800":1}', contentType: 'application/json' }],
  ['10,000 empty objects', { body: JSON.stringify(Array.from({ length: 10_000 }, () => ({}))), contentType: 'application/json' }],
  ['a byte-order mark', { body: '\ufeff{}', contentType: 'application/json' }],
  ['bytes that are not UTF-8', { body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), contentType: 'application/json' }],
  ['JSON said to be UTF-16', { body: '{}', contentType: 'application/json; charset=utf-16' }],
  ['JSON as text/plain', { body: '{}', contentType: 'text/plain' }],
  ['XML', { body: '<a><b/></a>', contentType: 'application/xml' }],
  ['a form', { body: 'email=a%40example.net&data[x]=1&__proto__[a]=1', contentType: 'application/x-www-form-urlencoded' }],
  ['a form with a lone surrogate', { body: 'email=%ED%A0%80', contentType: 'application/x-www-form-urlencoded' }],
  ['no content type', { body: '{"a":1}' }],
  ['a made-up content type', { body: '{}', contentType: 'application/x-evil' }],
]

/** Path segments, URL-encoded as they travel. */
export const HOSTILE_SEGMENTS: readonly string[] = [
  '0x10',
  '%205',
  '1%0D%0A',
  '-1',
  '1e3',
  '99999999999999999999999',
  '%ED%A0%80',
  '%FF',
  '%00',
  '%25',
  '..%2F..%2Fetc',
  '%F0%9F%98%80',
  'x'.repeat(5000),
  "1'%20OR%20'1'%3D'1",
]

/** Query values, URL-encoded as they travel. */
export const HOSTILE_QUERY_VALUES: readonly string[] = [
  '0x10',
  '%205',
  '1%0D%0A',
  'NaN',
  'Infinity',
  '-1',
  '1e3',
  '1.5',
  '99999999999999999999999',
  '%ED%A0%80',
  '%FF',
  '%00',
  '',
  'a'.repeat(100_000),
]

/** Parameters no route takes, in the forms that pollute prototypes in careless query parsers. */
export const POLLUTING_QUERIES = ['__proto__=1', '__proto__[polluted]=1', 'constructor[prototype][polluted]=1', '__proto__.polluted=1']

/** The same parameter twice, or in the bracket forms some parsers turn into arrays and objects. */
export const hostileQueries = (name: string) => [
  ...HOSTILE_QUERY_VALUES.map((value) => `${name}=${value}`),
  `${name}=1&${name}=2`,
  `${name}[]=1`,
  `${name}[a]=1`,
  `${name}`,
]

/** The error body of DESIGN.md, or what is wrong with `body` as one. */
export function errorShapeProblem(status: number, body: any): string | undefined {
  if (typeof body !== 'object' || body === null) return 'not a JSON object'
  const { success, code, message, statusCode, requestId, error } = body
  if (success !== false) return 'success is not false'
  if (typeof code !== 'string' || typeof message !== 'string' || typeof requestId !== 'string') return 'code, message or requestId missing'
  if (statusCode !== status) return `statusCode ${statusCode} is not the status ${status}`
  if (error?.code !== code || error?.message !== message) return 'error does not repeat code and message'
  if (typeof body.suggestion !== 'string' || body.suggestion.trim() === '') return 'no suggestion'
  if (body.errors !== undefined && !body.errors.every((e: any) => typeof e.field === 'string' && typeof e.message === 'string' && typeof e.code === 'string')) {
    return 'an item of errors without field, message and code'
  }
  if (JSON.stringify(body).length > 8192) return 'longer than 8 KiB'
  return undefined
}
