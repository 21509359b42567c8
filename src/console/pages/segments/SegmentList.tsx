import { useQuery } from '@tanstack/react-query'
import { Link } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { segmentsApi, type Segment } from '../../api/segments.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { Badge } from '../../components/Badge.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { Empty, ErrorState } from '../../components/States.tsx'
import { DataTable, type Column } from '../../components/Table.tsx'
import { Time } from '../../components/Time.tsx'
import { mayEditSegments } from '../../lib/segment-builder.ts'

const columns: Column<Segment>[] = [
  {
    header: 'Name',
    cell: (s) => (
      <Link href={`/segments/${s.id}`} className="segment-name">
        {s.name}
      </Link>
    ),
    sortValue: (s) => s.name.toLowerCase(),
  },
  { header: 'Kind', cell: (s) => <Badge tone={s.type === 'DYNAMIC' ? 'accent' : 'neutral'}>{s.type === 'DYNAMIC' ? 'Dynamic' : 'Static'}</Badge>, sortValue: (s) => s.type },
  { header: 'Members', cell: (s) => s.memberCount.toLocaleString('en-US'), align: 'numeric', sortValue: (s) => s.memberCount },
  { header: 'Tracking', cell: (s) => (s.trackMembership ? <Badge tone="ok">On</Badge> : <span className="muted">Off</span>), priority: 'low' },
  { header: 'Updated', cell: (s) => <Time value={s.updatedAt} />, sortValue: (s) => s.updatedAt },
]

/** The project's segments, each with its kind, members counted now and whether entries and exits are recorded. */
export default function SegmentList() {
  const { api } = useApi()
  const { project } = useProject()
  const list = useQuery({ queryKey: useProjectKey('segments'), queryFn: segmentsApi(api).list })
  const mayEdit = mayEditSegments(project.role)
  return (
    <>
      <PageHeader
        title="Segments"
        description="Sets of contacts: dynamic ones by a condition on their data, events and email activity, counted as they change; static ones by a list."
        actions={
          mayEdit && (
            <Link href="/segments/new" className="button button-primary">
              New segment
            </Link>
          )
        }
      />
      {list.error ? (
        <ErrorState error={list.error} retry={() => list.refetch()} />
      ) : (
        <DataTable
          caption="Segments"
          captionHidden
          columns={columns}
          rows={list.data ?? []}
          rowKey={(s) => s.id}
          loading={list.isPending}
          defaultSort={{ key: 'Updated', direction: 'descending' }}
          empty={<Empty title="No segment yet.">{mayEdit && <p>A segment gathers the contacts a campaign or a workflow reaches: make one with New segment.</p>}</Empty>}
        />
      )}
    </>
  )
}
