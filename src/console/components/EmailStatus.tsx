import { statusName, statusTone } from '../lib/email-filters.ts'

/** An email's status as a badge, coloured by how it went. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-status badge-${statusTone(status)}`}>{statusName(status)}</span>
}

/** Text that may be very long, cut to its cell with the whole of it on hover (and read whole by screen readers). */
export function Truncated({ text }: { text: string }) {
  return (
    <span className="truncate" title={text}>
      {text}
    </span>
  )
}
