import { ValueErrorType } from '@sinclair/typebox/errors'

/**
 * The `code` of a field error found by a request schema, said in the vocabulary of Plunk's errors
 * (zod's issue codes), so a client that switches on it works with either.
 */
export function issueCode(type: number | undefined): string {
  switch (type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'required'
    case ValueErrorType.ObjectAdditionalProperties:
      return 'unrecognized_keys'
    case ValueErrorType.StringMinLength:
    case ValueErrorType.ArrayMinItems:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.ObjectMinProperties:
      return 'too_small'
    case ValueErrorType.StringMaxLength:
    case ValueErrorType.ArrayMaxItems:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.ObjectMaxProperties:
      return 'too_big'
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
      return 'invalid_string'
    case ValueErrorType.Literal:
      return 'invalid_enum_value'
    case ValueErrorType.String:
    case ValueErrorType.Number:
    case ValueErrorType.Integer:
    case ValueErrorType.Boolean:
    case ValueErrorType.Object:
    case ValueErrorType.Array:
    case ValueErrorType.Null:
    case ValueErrorType.Union:
      return 'invalid_type'
    default:
      return 'invalid_value'
  }
}

/**
 * What to do about an error whose thrower gave no suggestion of its own: by its code where the
 * code says enough, else by its status. Every error body carries one.
 */
export function defaultSuggestion(code: string, status: number): string {
  return BY_CODE[code] ?? BY_STATUS[status] ?? (status >= 500 ? BY_STATUS[500]! : 'Check the request against the API document at /swagger and try again.')
}

const BY_CODE: Record<string, string> = {
  VALIDATION_ERROR: 'Fix the fields named in `errors` and send the request again; /swagger describes every field.',
  INVALID_JSON: 'Send a JSON body that parses, with the header Content-Type: application/json.',
  NOT_FOUND: 'Check the id or the path: ids belong to one project, so a key of another project finds nothing. /swagger lists the routes.',
  CONFLICT: 'Read the current state (GET) and change the request to fit it.',
  IN_USE: 'Remove or change what uses it first, then try again.',
  GONE: 'This link or item no longer exists; ask for a new one.',
  NOT_SCHEDULED: 'Only a scheduled email can be rescheduled or cancelled; GET the email to see its status.',
  PAYLOAD_TOO_LARGE: 'Send a smaller body: split a batch, or link to large attachments instead of attaching them.',
  LENGTH_REQUIRED: 'Send the body with a Content-Length header.',
  INVALID_ENCODING: 'Send the body as UTF-8.',
  PROJECT_DISABLED: 'An operator disabled this project; ask them to enable it (mailstead project enable ID).',
  FORBIDDEN: 'Use a key or an account with the rights this needs: a secret key (sk_) for everything but /v1/track, and a project role that allows the change.',
  UNAUTHORIZED: 'Send a valid key as Authorization: Bearer sk_..., or sign in to the console.',
  INTERNAL_SERVER_ERROR: 'Try again; if it keeps failing, give the operator the requestId, which finds the cause in the log.',
  UNHEALTHY: 'Wait and try again; the operator can see why with mailstead health.',
}

const BY_STATUS: Record<number, string> = {
  400: 'Check the request against the API document at /swagger and send it again.',
  401: BY_CODE.UNAUTHORIZED!,
  403: BY_CODE.FORBIDDEN!,
  404: BY_CODE.NOT_FOUND!,
  409: BY_CODE.CONFLICT!,
  413: BY_CODE.PAYLOAD_TOO_LARGE!,
  415: 'Send the body as JSON with the header Content-Type: application/json.',
  422: BY_CODE.VALIDATION_ERROR!,
  429: 'Wait for the time in Retry-After, then try again.',
  500: BY_CODE.INTERNAL_SERVER_ERROR!,
  503: BY_CODE.UNHEALTHY!,
}
