import { CopyButton } from './CopyButton.tsx'

/** A secret the API shows this once (a new key): in full, with a copy button. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const id = `secret-${label.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <div className="secret">
      <span id={id} className="field-label">
        {label}
      </span>
      <div className="secret-row">
        <code className="secret-value" aria-labelledby={id}>
          {value}
        </code>
        <CopyButton value={value} label={label.toLowerCase()} />
      </div>
    </div>
  )
}
