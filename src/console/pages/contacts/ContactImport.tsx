import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useLocation, useSearch } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { importsApi, type ContactImport as Job } from '../../api/imports.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { Badge, type Tone } from '../../components/Badge.tsx'
import { Card } from '../../components/Card.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { ErrorState } from '../../components/States.tsx'
import { DataTable, type Column } from '../../components/Table.tsx'
import { Time } from '../../components/Time.tsx'
import { ImportProgress } from './ImportProgress.tsx'
import { NewImport } from './NewImport.tsx'

/** The roles that may import (the server's "content" writes); a viewer sees the imports only. */
const IMPORTERS = ['owner', 'admin', 'member']

const STATUS: Record<Job['status'], { label: string; tone: Tone }> = {
  PENDING: { label: 'Waiting', tone: 'neutral' },
  RUNNING: { label: 'Importing', tone: 'info' },
  COMPLETED: { label: 'Completed', tone: 'ok' },
  FAILED: { label: 'Failed', tone: 'bad' },
}

export const statusBadge = (status: Job['status']) => <Badge tone={STATUS[status].tone}>{STATUS[status].label}</Badge>

const settled = (job: Job) => job.status === 'COMPLETED' || job.status === 'FAILED'

/** The project's latest imports, each a link to its progress or result. */
function RecentImports({ current }: { current: string | null }) {
  const { api } = useApi()
  const recent = useQuery({
    queryKey: useProjectKey('contact-imports'),
    queryFn: () => importsApi(api).recent(10),
    refetchInterval: (query) => (query.state.data?.imports.some((job) => !settled(job)) ? 2000 : false),
  })
  const columns: Column<Job>[] = [
    {
      header: 'File',
      cell: (job) => (
        <Link href={`/contacts/import?id=${job.id}`} aria-current={job.id === current ? 'page' : undefined}>
          {job.fileName ?? 'CSV upload'}
        </Link>
      ),
    },
    { header: 'Status', cell: (job) => statusBadge(job.status) },
    { header: 'Rows', cell: (job) => job.processedRows.toLocaleString(), align: 'numeric' },
    { header: 'Created', cell: (job) => job.createdCount.toLocaleString(), align: 'numeric', priority: 'low' },
    { header: 'Updated', cell: (job) => job.updatedCount.toLocaleString(), align: 'numeric', priority: 'low' },
    { header: 'Refused', cell: (job) => job.failedCount.toLocaleString(), align: 'numeric' },
    { header: 'Started', cell: (job) => <Time value={job.createdAt} /> },
  ]
  return (
    <Card title="Recent imports">
      {recent.error ? (
        <ErrorState error={recent.error} retry={() => recent.refetch()} />
      ) : (
        <DataTable
          caption="Recent imports"
          captionHidden
          columns={columns}
          rows={recent.data?.imports ?? []}
          rowKey={(job) => job.id}
          loading={recent.isPending}
          empty="No imports yet: the files you import are listed here with how they went."
        />
      )}
    </Card>
  )
}

/**
 * /contacts/import: a CSV file in four steps (choose it, map its columns with a preview, follow
 * the import, read the result and its report of refused rows), then the latest imports. An
 * import's progress has its own address (?id=), so a reload or a link comes back to it.
 */
export default function ContactImport() {
  const id = new URLSearchParams(useSearch()).get('id')
  const [, navigate] = useLocation()
  const { project } = useProject()
  const queries = useQueryClient()
  const recentKey = useProjectKey('contact-imports')
  const [restart, setRestart] = useState(0)
  const mayImport = IMPORTERS.includes(project.role)
  const started = (job: Job) => {
    void queries.invalidateQueries({ queryKey: recentKey })
    navigate(`/contacts/import?id=${job.id}`)
  }
  return (
    <>
      <PageHeader
        title="Import contacts"
        description="From a CSV file: its columns mapped to the email, subscribed and data fields; contacts already here are updated."
        actions={
          <Link href="/contacts" className="button">
            Back to contacts
          </Link>
        }
      />
      {id ? (
        <ImportProgress id={id} onAnother={() => (setRestart((n) => n + 1), navigate('/contacts/import'))} onSettled={() => queries.invalidateQueries({ queryKey: recentKey })} />
      ) : mayImport ? (
        <NewImport key={restart} onStarted={started} />
      ) : (
        <Card title="Import a file">
          <p className="muted">Your role in this project sees imports but does not start them: an owner, admin or member does.</p>
        </Card>
      )}
      <RecentImports current={id} />
    </>
  )
}

