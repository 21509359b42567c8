import { t } from 'elysia'
import { invalid } from '../lib/errors.ts'

/** Request bodies reject fields they do not know, so a typo is an error instead of being ignored. */
export const strictObject: typeof t.Object = ((properties: any, options: any) =>
  t.Object(properties, { additionalProperties: false, ...options })) as typeof t.Object

export const EmailField = t.String({ description: 'An email address', examples: ['jane@example.com'] })

export const DataField = t.Record(t.String(), t.Any(), {
  description: 'Free-form key/value metadata; in updates a null value removes the key',
})

/**
 * A whole number in a query or path parameter: plain decimal digits only, in a range, named in its
 * error. Elysia's t.Numeric takes whatever Number() takes (`0x10`, ` 5`, `1\r\n`, `1e3`); a
 * parameter that means a count or an id is refused rather than guessed at.
 */
export const decimalParam = (name: string, min: number, max: number, description: string) => {
  const error = max === Number.MAX_SAFE_INTEGER ? `must be a whole number from ${min} up` : `must be a whole number from ${min} to ${max}`
  return t
    .Transform(t.String({ pattern: '^[0-9]{1,16}$', description: `${description}: ${error.replace('must be ', '')}`, error, 'x-field': name }))
    .Decode((text) => {
      const value = Number(text)
      if (value < min || value > max) throw invalid(name, error, value < min ? 'too_small' : 'too_big')
      return value
    })
    .Encode((value) => String(value))
}

/** An integer query parameter with a range. */
export const intQuery = decimalParam

/** A numeric id in the path (domains have them): decimal digits, 1 and up. */
export const numericId = (description: string) => decimalParam('id', 1, Number.MAX_SAFE_INTEGER, description)

/**
 * A whole number in a JSON body: a JSON number, never a string. Elysia's t.Integer would also take
 * strings as Number() reads them (`"0x10"` is 16).
 */
export const intField = (min: number, max: number, description?: string) =>
  t.Number({ multipleOf: 1, minimum: min, maximum: max, error: `must be a whole number from ${min} to ${max}`, ...(description && { description }) })

/**
 * One of `values`. Elysia's UnionEnum defaults to its first value, which it fills in where an
 * optional field is absent (a PATCH without it would change it, a list without it would filter
 * by it): every enum a request carries is made with this, which undoes the default.
 */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
  t.UnionEnum(values, { default: undefined, error: `must be one of ${values.join(', ')}`, ...(description && { description }) })

export const booleanQuery = (name: string, description: string) =>
  t.BooleanString({ description, error: 'must be true or false', 'x-field': name })

export const ContactSchema = t.Object({
  id: t.String(),
  email: t.String(),
  subscribed: t.Boolean(),
  data: t.Record(t.String(), t.Any()),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Contact' })

export const ErrorSchema = t.Object({
  success: t.Literal(false),
  code: t.String(),
  message: t.String(),
  statusCode: t.Integer(),
  requestId: t.String(),
  errors: t.Optional(
    t.Array(t.Object({ field: t.String(), message: t.String(), code: t.String({ description: 'invalid_type, required, too_small, too_big, invalid_string, invalid_enum_value, unrecognized_keys or invalid_value' }) })),
  ),
  suggestion: t.String({ description: 'What to do about it' }),
  error: t.Object({ code: t.String(), message: t.String() }),
}, { title: 'Error' })

/** Error responses every authenticated route can give. */
export const authErrors = { 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema } as const
