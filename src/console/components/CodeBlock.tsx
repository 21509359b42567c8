import { useId } from 'react'
import { CopyButton } from './CopyButton.tsx'

/** Code to read and copy: a caption (what it is), a Copy button named for it, and the code. */
export function CodeBlock({ code, label, title }: { code: string; label: string; title?: string }) {
  const id = useId()
  return (
    <figure className="code-block" aria-labelledby={id}>
      <figcaption className="code-block-head">
        <span id={id}>{title ?? label}</span>
        <CopyButton value={code} label={label} />
      </figcaption>
      {/* Focusable: a block wider or taller than its box scrolls by keyboard too. */}
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  )
}
