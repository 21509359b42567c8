import { useEffect, useState } from 'react'
import { Button } from 'react-aria-components'

/**
 * Copies through the Clipboard API where the page is a secure context (HTTPS, localhost); a
 * console reached over plain HTTP by address has none, so a selected hidden text area is copied
 * the old way there.
 */
async function copyText(value: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(value)
  const area = document.createElement('textarea')
  area.value = value
  area.className = 'offscreen'
  area.setAttribute('readonly', '')
  document.body.append(area)
  area.select()
  const copied = document.execCommand('copy')
  area.remove()
  if (!copied) throw new Error('copy refused')
}

/** A "Copy" button named for what it copies ("Copy secret key"); says when it is done. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  useEffect(() => {
    if (state === 'idle') return
    const timer = setTimeout(() => setState('idle'), 2000)
    return () => clearTimeout(timer)
  }, [state])
  return (
    <span className="copy">
      <Button className="button button-small" aria-label={`Copy ${label}`} onPress={() => copyText(value).then(() => setState('copied'), () => setState('failed'))}>
        {state === 'copied' ? 'Copied' : 'Copy'}
      </Button>
      <span role="status" className="visually-hidden">
        {state === 'copied' ? `${label} copied` : state === 'failed' ? `Could not copy the ${label}: select it and copy it by hand` : ''}
      </span>
    </span>
  )
}
