import { useEffect, useRef } from 'react'
import { ApiError } from '../api/api-errors.ts'

/**
 * What a failed submit could not show beside a field: the API's message when it named none, or
 * the fields this form does not have. Focus goes to the first field in error, or to this.
 */
export function FormErrors({ error, fields }: { error: unknown; fields: readonly string[] }) {
  const box = useRef<HTMLDivElement>(null)
  const messages = error instanceof ApiError ? error.formMessages(fields) : error ? [String((error as Error).message ?? error)] : []
  useEffect(() => {
    if (!error) return
    const form = box.current?.closest('form')
    const invalid = form?.querySelector<HTMLElement>('[aria-invalid="true"]')
    ;(invalid ?? box.current)?.focus()
  }, [error])
  return (
    <div ref={box} tabIndex={-1} className={messages.length ? 'form-errors' : 'form-errors empty'} role="alert">
      {messages.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </div>
  )
}

/** The API's message for `field` in a failed submit. */
export const fieldError = (error: unknown, field: string) => (error instanceof ApiError ? error.fieldMessage(field) : undefined)
