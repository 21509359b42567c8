import { t } from 'elysia'

/** Request bodies reject fields they do not know, so a typo is an error instead of being ignored. */
export const strictObject: typeof t.Object = ((properties: any, options: any) =>
  t.Object(properties, { additionalProperties: false, ...options })) as typeof t.Object

export const EmailField = t.String({ description: 'An email address', examples: ['jane@example.com'] })

export const DataField = t.Record(t.String(), t.Any(), {
  description: 'Free-form key/value metadata; in updates a null value removes the key',
})

/** An integer query parameter with a range, named in its error. */
export const intQuery = (name: string, min: number, max: number, description: string) =>
  t.Numeric({
    minimum: min,
    maximum: max,
    multipleOf: 1,
    description,
    error: `must be a whole number from ${min} to ${max}`,
    'x-field': name,
  })

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
})

export const ErrorSchema = t.Object({
  success: t.Literal(false),
  code: t.String(),
  message: t.String(),
  statusCode: t.Integer(),
  requestId: t.String(),
  errors: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }))),
  suggestion: t.Optional(t.String()),
  error: t.Object({ code: t.String(), message: t.String() }),
})

/** Error responses every authenticated route can give. */
export const authErrors = { 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema } as const
