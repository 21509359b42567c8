import { ApiError } from '../../api/api-errors.ts'
import type { SegmentPreview } from '../../api/segments.api.ts'
import { Link } from 'wouter'
import { Card } from '../../components/Card.tsx'
import { Skeleton } from '../../components/Skeleton.tsx'
import { membersText } from '../../lib/segment-builder.ts'

/**
 * The members the condition being edited has now (POST /segments/preview, asked once the condition
 * has stayed the same for 300 ms), with the newest ten; the last count stays shown while the next
 * is asked.
 */
export function LiveCount({ preview, error, counting }: { preview: SegmentPreview | undefined; error: unknown; counting: boolean }) {
  const problem = error instanceof ApiError ? error : undefined
  return (
    <Card title="Members now" className="builder-count" description="Counted as the condition changes; nothing is saved.">
      <p className="builder-count-value" aria-live="polite" aria-busy={counting}>
        {error ? <span className="muted">{problem?.fields.length ? 'Fix the condition to count its members.' : `Could not count: ${(error as Error).message}`}</span> : preview ? membersText(preview.count) : <span className="muted">Counting…</span>}
      </p>
      {!error && !preview && <Skeleton label="Counting members" lines={3} />}
      {!error && preview && preview.count === 0 && <p className="muted">No contact matches this condition now.</p>}
      {!error && preview && preview.contacts.length > 0 && (
        <>
          <h3 className="builder-count-heading">{preview.count > preview.contacts.length ? `The newest ${preview.contacts.length}` : 'All of them'}</h3>
          <ul className="builder-members" aria-label="Members found">
            {preview.contacts.map((contact) => (
              <li key={contact.id}>
                <Link href={`/contacts/${contact.id}`}>{contact.email}</Link>
                {!contact.subscribed && <span className="muted"> unsubscribed</span>}
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  )
}
