import { useMutation, useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { Button, Label, ProgressBar } from 'react-aria-components'
import { Link } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { importsApi, type ContactImport } from '../../api/imports.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { Card } from '../../components/Card.tsx'
import { ErrorState, Loading } from '../../components/States.tsx'
import { StatTile } from '../../components/StatTile.tsx'
import { downloadText } from '../../lib/download.ts'
import { ImportSteps } from './ImportSteps.tsx'
import { fileSize } from './NewImport.tsx'

/** How often a running import is read again. */
const POLL_MS = 1000

const settled = (job: ContactImport) => job.status === 'COMPLETED' || job.status === 'FAILED'

/** The bytes read of the file, as a percentage (a finished import is 100). */
const percentOf = (job: ContactImport) => (settled(job) ? 100 : job.bytesTotal === 0 ? 0 : Math.min(100, (job.bytesProcessed / job.bytesTotal) * 100))

function Counts({ job }: { job: ContactImport }) {
  return (
    <dl className="stat-tiles" aria-label="Rows so far">
      <StatTile label="Rows read" value={job.processedRows.toLocaleString()} />
      <StatTile label="Created" value={job.createdCount.toLocaleString()} />
      <StatTile label="Updated" value={job.updatedCount.toLocaleString()} />
      <StatTile label="Refused" value={job.failedCount.toLocaleString()} />
    </dl>
  )
}

/** Step 4's report: the refused rows downloaded as CSV (line, reason), and the first of them shown. */
function RefusedRows({ job }: { job: ContactImport }) {
  const { api } = useApi()
  const download = useMutation({
    mutationFn: () => importsApi(api).report(job.id),
    onSuccess: (csv) => downloadText(csv, `import-${job.id}-refused-rows.csv`, 'text/csv'),
  })
  if (job.failedCount === 0) return <p className="muted">Every row was imported.</p>
  const shown = job.errors.slice(0, 10)
  return (
    <div className="import-report">
      <div className="import-report-head">
        <p>
          {job.failedCount.toLocaleString()} {job.failedCount === 1 ? 'row was' : 'rows were'} refused
          {job.failedCount > job.errors.length && ` (the report lists the first ${job.errors.length})`}.
        </p>
        <Button className="button" isPending={download.isPending} onPress={() => download.mutate()}>
          Download report of refused rows
        </Button>
      </div>
      {download.error != null && <ErrorState error={download.error} />}
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">Refused rows</caption>
          <thead>
            <tr>
              <th scope="col" className="end numeric">
                Line
              </th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <tr key={e.line}>
                <td data-label="Line" className="end numeric">
                  {e.line}
                </td>
                <td data-label="Reason" className="wrap-anywhere">
                  {e.message}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {job.errors.length > shown.length && <p className="muted">The report has the other {job.failedCount - shown.length}.</p>}
    </div>
  )
}

/** Steps 3 and 4: the import's progress (read every second until it ends), then its result and report. */
export function ImportProgress({ id, onAnother, onSettled }: { id: string; onAnother: () => void; onSettled: () => void }) {
  const { api } = useApi()
  const job = useQuery({
    queryKey: useProjectKey('contact-import', id),
    queryFn: () => importsApi(api).get(id),
    refetchInterval: (query) => (query.state.data && settled(query.state.data) ? false : POLL_MS),
  })
  const done = job.data !== undefined && settled(job.data)
  useEffect(() => {
    if (done) onSettled()
  }, [done])
  if (job.isPending) return <Loading label="Loading the import" />
  if (job.error) return <ErrorState error={job.error} retry={() => job.refetch()} />
  const data = job.data
  const name = data.fileName ?? 'the CSV upload'
  const failed = data.status === 'FAILED'
  return (
    <>
      <ImportSteps current={done ? 4 : 3} />
      <Card
        title={done ? (failed ? 'The import failed' : 'Import finished') : 'Importing'}
        description={
          <>
            <strong>{name}</strong> · {fileSize(data.bytesTotal)}
          </>
        }
      >
        <ProgressBar className="progress" value={percentOf(data)}>
          {({ valueText, percentage }) => (
            <>
              <div className="progress-head">
                <Label>{done ? `Imported ${name}` : data.status === 'PENDING' ? `Waiting to import ${name}` : `Importing ${name}`}</Label>
                <span className="progress-value">{valueText}</span>
              </div>
              <div className={failed ? 'progress-track progress-failed' : 'progress-track'}>
                <div className="progress-fill" style={{ width: `${percentage ?? 0}%` }} />
              </div>
            </>
          )}
        </ProgressBar>
        <Counts job={data} />
        {failed && (
          <p className="import-refused" role="alert">
            {data.error}
          </p>
        )}
        {done && (
          <>
            <RefusedRows job={data} />
            <div className="import-actions-row">
              <Link href="/contacts" className="button button-primary">
                See the contacts
              </Link>
              <Button className="button" onPress={onAnother}>
                Import another file
              </Button>
            </div>
          </>
        )}
      </Card>
    </>
  )
}
