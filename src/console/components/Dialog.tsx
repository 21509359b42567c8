import type { ReactNode } from 'react'
import { Dialog as AriaDialog, Button, Heading, Modal, ModalOverlay } from 'react-aria-components'
import { SubmitButton } from './SubmitButton.tsx'

/**
 * A modal dialog (React Aria: focus kept inside, Escape closes, focus back on its trigger), put in a
 * DialogTrigger beside the button that opens it. `alert` for a question before something destructive.
 * `dismissable={false}` while it shows something only once (a new key): then only its own buttons close it.
 */
export function Dialog({
  title,
  role = 'dialog',
  dismissable = true,
  wide = false,
  children,
}: {
  title: string
  role?: 'dialog' | 'alertdialog'
  dismissable?: boolean
  /** Room for a form of several fields. */
  wide?: boolean
  children: (close: () => void) => ReactNode
}) {
  return (
    <ModalOverlay className="modal-overlay" isDismissable={dismissable} isKeyboardDismissDisabled={!dismissable}>
      <Modal className={wide ? 'modal modal-wide' : 'modal'}>
        <AriaDialog className="dialog" role={role}>
          {({ close }) => (
            <>
              <Heading slot="title">{title}</Heading>
              {children(close)}
            </>
          )}
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  )
}

/** A dialog form's buttons: Cancel, which closes it, and its submit button (one request however often it is pressed). */
export function DialogActions({ close, submit, pending }: { close: () => void; submit: string; pending: boolean }) {
  return (
    <div className="dialog-actions">
      <Button className="button" onPress={close}>
        Cancel
      </Button>
      <SubmitButton pending={pending}>{submit}</SubmitButton>
    </div>
  )
}
