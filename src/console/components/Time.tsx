import { showTime } from '../lib/time.ts'

/** An API time in the reader's zone; hovering shows it in UTC. */
export function Time({ value }: { value: string | number | null | undefined }) {
  const shown = showTime(value)
  if (!shown) return <span className="muted">—</span>
  return (
    <time dateTime={shown.dateTime} title={shown.utc}>
      {shown.local}
    </time>
  )
}
