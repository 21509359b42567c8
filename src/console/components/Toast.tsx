import { Button, Text, UNSTABLE_Toast as AriaToast, UNSTABLE_ToastContent as ToastContent, UNSTABLE_ToastQueue as ToastQueue, UNSTABLE_ToastRegion as ToastRegion } from 'react-aria-components'

export interface ToastMessage {
  title: string
  description?: string
  tone?: 'ok' | 'bad' | 'info'
}

/** The console's one queue of toasts: short notes after an action ("Key revoked"), gone after 5 s. */
export const toasts = new ToastQueue<ToastMessage>({ maxVisibleToasts: 3 })

/** Says `message` in a toast at the bottom right (announced by screen readers, closable by keyboard). */
export function toast(message: ToastMessage) {
  toasts.add(message, { timeout: message.tone === 'bad' ? 8000 : 5000 })
}

/** Where the toasts appear: rendered once, in the shell. */
export function Toasts() {
  return (
    <ToastRegion queue={toasts} className="toast-region">
      {({ toast: item }) => (
        <AriaToast toast={item} className={`toast tone-${item.content.tone ?? 'info'}`}>
          <ToastContent className="toast-content">
            <Text slot="title" className="toast-title">
              {item.content.title}
            </Text>
            {item.content.description && (
              <Text slot="description" className="toast-description">
                {item.content.description}
              </Text>
            )}
          </ToastContent>
          <Button slot="close" className="toast-close" aria-label="Close">
            ×
          </Button>
        </AriaToast>
      )}
    </ToastRegion>
  )
}
