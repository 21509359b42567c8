import type { ReactNode } from 'react'
import { Button, DialogTrigger } from 'react-aria-components'
import { Dialog } from './Dialog.tsx'
import { FormErrors } from './FormErrors.tsx'

interface ConfirmProps {
  /** The button that opens the dialog, e.g. "Revoke". */
  trigger: string
  /** Its accessible name when the text alone is not enough ("Revoke sk_ab12…"). */
  triggerLabel?: string
  title: string
  children: ReactNode
  /** The button that does it, e.g. "Revoke key". */
  confirm: string
  onConfirm: () => Promise<unknown>
  pending: boolean
  error: unknown
  /** 'plain' for an action that destroys nothing (retry all): neither button is red. */
  tone?: 'danger' | 'plain'
}

/**
 * A destructive action asked again in a modal dialog (React Aria: focus kept inside, Escape
 * closes, focus back on the trigger). It closes once the action succeeded; a failure stays shown.
 */
export function ConfirmDialog({ trigger, triggerLabel, title, children, confirm, onConfirm, pending, error, tone = 'danger' }: ConfirmProps) {
  return (
    <DialogTrigger>
      <Button className={tone === 'danger' ? 'button button-small button-danger' : 'button button-small'} aria-label={triggerLabel}>
        {trigger}
      </Button>
      <Dialog title={title} role="alertdialog">
        {(close) => (
          <>
            {children}
            <FormErrors error={error} fields={[]} />
            <div className="dialog-actions">
              <Button className="button" onPress={close}>
                Cancel
              </Button>
              <Button className={tone === 'danger' ? 'button button-danger button-solid' : 'button button-primary'} isPending={pending} onPress={() => onConfirm().then(close, () => {})}>
                {confirm}
              </Button>
            </div>
          </>
        )}
      </Dialog>
    </DialogTrigger>
  )
}
