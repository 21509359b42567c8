import { useCallback, useRef, type ReactNode } from 'react'
import { Button } from 'react-aria-components'

/**
 * Runs `action` unless its previous run is still going: a double-click (or Enter held down) on a
 * submit button sends one request. A ref, set at the first call, not state: a second click can
 * arrive before React has drawn the button as pending.
 */
export function useOnce<A extends unknown[]>(action: (...args: A) => Promise<unknown>): (...args: A) => void {
  const busy = useRef(false)
  const latest = useRef(action)
  latest.current = action
  return useCallback((...args: A) => {
    if (busy.current) return
    busy.current = true
    // A failure is the mutation's to show (its error); here it only ends the run.
    latest.current(...args)
      .catch(() => {})
      .finally(() => {
        busy.current = false
      })
  }, [])
}

/** A form's submit button: primary unless said, drawn as pending (and refusing presses) while its request runs. */
export function SubmitButton({ pending, tone = 'primary', children, className }: { pending: boolean; tone?: 'primary' | 'plain' | 'danger'; children: ReactNode; className?: string }) {
  const look = tone === 'primary' ? 'button button-primary' : tone === 'danger' ? 'button button-danger' : 'button'
  return (
    <Button type="submit" className={[look, className].filter(Boolean).join(' ')} isPending={pending}>
      {pending && <span className="spinner spinner-inline" aria-hidden="true" />}
      {children}
    </Button>
  )
}

/** useOnce for a form's submit handler: `once(() => mutation.mutateAsync(values))` sends one request at a time. */
export function useSubmitOnce(): (run: () => Promise<unknown>) => void {
  return useOnce((run: () => Promise<unknown>) => run())
}
