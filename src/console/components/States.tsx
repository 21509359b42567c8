import type { ReactNode } from 'react'
import { Button } from 'react-aria-components'
import { ApiError } from '../api/api-errors.ts'
import { Skeleton } from './Skeleton.tsx'

/** Shown while something loads: skeleton bars, its label announced once. */
export function Loading({ label = 'Loading' }: { label?: string }) {
  return <Skeleton label={label} />
}

/** A list or page with nothing to show yet, saying what would be here and how to add it. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children && <div className="state-body">{children}</div>}
    </div>
  )
}

/** A failed load: the API's message, its request id (for the log) and a way to try again. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const apiError = error instanceof ApiError ? error : undefined
  return (
    <div className="state state-error" role="alert">
      <p className="state-title">{apiError?.message ?? 'Something went wrong'}</p>
      {apiError?.suggestion && <p>{apiError.suggestion}</p>}
      {apiError?.requestId && <p className="muted">Request id: {apiError.requestId}</p>}
      {retry && (
        <Button className="button" onPress={retry}>
          Try again
        </Button>
      )}
    </div>
  )
}
