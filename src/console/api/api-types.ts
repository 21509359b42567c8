import type { components, paths } from './api-schema.generated.ts'

/*
 * The API's types as the console names them, read from api-schema.generated.ts (made from the
 * server's OpenAPI document by scripts/console-types.ts) instead of copied by hand: a route whose
 * answer changes changes these, and `tsc -p src/console` shows each page it breaks.
 */

/** A named schema of the document (components.schemas): `Schema<'Domain'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name]

type Path = keyof paths
type Method<P extends Path> = keyof paths[P] & ('get' | 'post' | 'put' | 'patch' | 'delete')
type Operation<P extends Path, M extends Method<P>> = paths[P][M]
type JsonOf<Response> = Response extends { content: { 'application/json': infer Json } } ? Json : never
type Success<Responses> = Responses[Extract<keyof Responses, 200 | 201 | 202>]

/** What a route answers with when it succeeds (its 200, 201 or 202 JSON): `Answer<'/api/v1/queue', 'get'>`. */
export type Answer<P extends Path, M extends Method<P>> = Operation<P, M> extends { responses: infer Responses } ? JsonOf<Success<Responses>> : never

/** The JSON body a route takes: `RequestBody<'/webhooks', 'post'>`. */
export type RequestBody<P extends Path, M extends Method<P>> = Operation<P, M> extends { requestBody?: { content: { 'application/json': infer Json } } } ? Json : never

/** One item of an array type. */
export type Item<List> = List extends ReadonlyArray<infer One> ? One : never
