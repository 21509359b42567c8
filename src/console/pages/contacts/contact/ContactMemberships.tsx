import { useQuery } from '@tanstack/react-query'
import { Link } from 'wouter'
import { useApi } from '../../../api/context.tsx'
import { contactApi, type BookMembership } from '../../../api/contact.api.ts'
import { useProjectKey } from '../../../app/project.tsx'
import { Badge } from '../../../components/Badge.tsx'
import { Card } from '../../../components/Card.tsx'
import { ErrorState, Loading } from '../../../components/States.tsx'
import { Time } from '../../../components/Time.tsx'

/** How a consent was given, in words (src/core/segments/ records it). */
const HOW: Record<string, string> = {
  confirmation: 'Followed the link of the confirmation email',
  api: 'Listed by an app through the API',
  form: 'Signed up with a form',
  preferences: 'Joined on the preference page',
}

/** The consent a book's double opt-in recorded: when, how, from where, and what was agreed to. */
function Consent({ book }: { book: BookMembership }) {
  const consent = book.consent
  if (!consent) return <p className="muted small">No consent recorded.</p>
  return (
    <dl className="facts consent">
      <dt>Confirmed</dt>
      <dd>
        <Time value={consent.confirmedAt} />
      </dd>
      <dt>How</dt>
      <dd>{HOW[consent.method] ?? consent.method}</dd>
      <dt>IP address</dt>
      <dd>{consent.clientIp ?? <span className="muted">not known</span>}</dd>
      <dt>Browser</dt>
      <dd className="wrap-anywhere">{consent.userAgent ?? <span className="muted">not known</span>}</dd>
      <dt>Agreed to</dt>
      <dd className="wrap-anywhere">
        {consent.agreedTo.book}
        {consent.agreedTo.subject && <span className="muted"> (“{consent.agreedTo.subject}”)</span>}
        {consent.agreedTo.form && <span className="muted">, with the form “{consent.agreedTo.form}”</span>}
      </dd>
    </dl>
  )
}

/** The segments the contact is a member of, and the contact books it is in or asked to confirm, with their consents. */
export function ContactMemberships({ id }: { id: string }) {
  const { api } = useApi()
  const memberships = useQuery({ queryKey: useProjectKey('contact', id, 'memberships'), queryFn: () => contactApi(api).memberships(id) })
  if (memberships.error) return <ErrorState error={memberships.error} retry={() => memberships.refetch()} />
  if (!memberships.data) return <Loading label="Loading segments and books" />
  const { segments, books } = memberships.data
  return (
    <div className="memberships">
      <Card title="Segments">
        {segments.length === 0 ? (
          <p className="muted">In no segment.</p>
        ) : (
          <ul className="plain-list membership-list">
            {segments.map((s) => (
              <li key={s.id}>
                <Link href={`/segments/${s.id}`}>{s.name}</Link> <Badge>{s.type === 'STATIC' ? 'Listed' : 'By condition'}</Badge>{' '}
                {s.since && (
                  <span className="muted small">
                    since <Time value={s.since} />
                  </span>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Contact books">
        {books.length === 0 ? (
          <p className="muted">In no contact book.</p>
        ) : (
          <ul className="plain-list membership-list">
            {books.map((b) => (
              <li key={b.id}>
                <div className="membership-head">
                  <span aria-hidden="true">{b.emoji}</span> <strong>{b.name}</strong>{' '}
                  <Badge tone={b.state === 'listed' ? 'ok' : 'warn'}>{b.state === 'listed' ? 'Subscribed' : 'Waiting to confirm'}</Badge>{' '}
                  <span className="muted small">
                    since <Time value={b.since} />
                  </span>
                </div>
                <Consent book={b} />
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  )
}
