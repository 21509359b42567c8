import type { EmailEvent } from '../../api/emails.api.ts'
import { StatusBadge } from '../../components/EmailStatus.tsx'
import { Time } from '../../components/Time.tsx'
import { eventLines } from '../../lib/event-words.ts'

/** What an event says besides its status, as labelled lines; times in the reader's zone (the UTC instant on hover). */
function EventData({ data }: { data: EmailEvent['data'] }) {
  const lines = eventLines(data)
  if (lines.length === 0) return null
  return (
    <dl className="event-data">
      {lines.map((line) => (
        <div key={line.label}>
          <dt>{line.label}</dt>
          <dd>{'time' in line ? <Time value={line.time} /> : line.text}</dd>
        </div>
      ))}
    </dl>
  )
}

/** An email's events, oldest first, each with its status, its time and what it says. */
export function Timeline({ events }: { events: EmailEvent[] }) {
  if (events.length === 0) return <p className="muted">No events yet.</p>
  return (
    <ol className="timeline" aria-label="Events, oldest first">
      {events.map((event, i) => (
        <li key={`${event.createdAt}-${i}`} className="timeline-item">
          <div className="timeline-head">
            <StatusBadge status={event.status} />
            <Time value={event.createdAt} />
          </div>
          <EventData data={event.data} />
        </li>
      ))}
    </ol>
  )
}
