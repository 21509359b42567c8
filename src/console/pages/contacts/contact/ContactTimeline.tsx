import { useInfiniteQuery } from '@tanstack/react-query'
import { Button } from 'react-aria-components'
import { Link } from 'wouter'
import { useApi } from '../../../api/context.tsx'
import { contactApi, type ContactEvent } from '../../../api/contact.api.ts'
import { useProjectKey } from '../../../app/project.tsx'
import { Badge } from '../../../components/Badge.tsx'
import { Empty, ErrorState, Loading } from '../../../components/States.tsx'
import { Time } from '../../../components/Time.tsx'
import { contactEventWords } from '../../../lib/contact-timeline-words.ts'

function EventItem({ event }: { event: ContactEvent }) {
  const words = contactEventWords(event.name, event.data)
  return (
    <li className="timeline-item">
      <div className="timeline-head">
        <strong className="wrap-anywhere">{words.title}</strong>
        <Badge tone={words.kind === 'tracked' ? 'accent' : 'neutral'}>{words.kind === 'tracked' ? 'Tracked' : 'Change'}</Badge>
        <Time value={event.createdAt} />
      </div>
      {words.segmentId && <Link href={`/segments/${words.segmentId}`}>Open the segment</Link>}
      {words.lines.length > 0 && (
        <dl className="event-data">
          {words.lines.map((line, i) => (
            <div key={`${line.label}-${i}`}>
              <dt>{line.label}</dt>
              <dd className="wrap-anywhere">{'time' in line ? <Time value={line.time} /> : line.text}</dd>
            </div>
          ))}
        </dl>
      )}
    </li>
  )
}

/** The contact's events, newest first, fifty at a time ("Show older events" reads on). */
export function ContactTimeline({ id }: { id: string }) {
  const { api } = useApi()
  const pages = useInfiniteQuery({
    queryKey: useProjectKey('contact', id, 'events'),
    queryFn: ({ pageParam }) => contactApi(api).events(id, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.cursor,
  })
  if (pages.error && !pages.data) return <ErrorState error={pages.error} retry={() => pages.refetch()} />
  if (!pages.data) return <Loading label="Loading the timeline" />
  const events = pages.data.pages.flatMap((page) => page.events)
  if (events.length === 0) return <Empty title="No events yet">Events tracked for this contact and changes to it appear here.</Empty>
  return (
    <>
      <ol className="timeline" aria-label="Events, newest first">
        {events.map((event) => (
          <EventItem key={event.id} event={event} />
        ))}
      </ol>
      {pages.hasNextPage && (
        <Button className="button" isPending={pages.isFetchingNextPage} onPress={() => pages.fetchNextPage()}>
          Show older events
        </Button>
      )}
    </>
  )
}
