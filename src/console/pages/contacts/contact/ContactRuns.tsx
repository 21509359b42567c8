import { useApi } from '../../../api/context.tsx'
import { contactApi, type WorkflowRun } from '../../../api/contact.api.ts'
import { useProjectKey } from '../../../app/project.tsx'
import { Badge, type Tone } from '../../../components/Badge.tsx'
import { ServerPaged } from '../../../components/ServerPaged.tsx'
import { Empty } from '../../../components/States.tsx'
import { DataTable, type Column } from '../../../components/Table.tsx'
import { Time } from '../../../components/Time.tsx'
import { fromNumberedList } from '../../../lib/cursor-pager.ts'

const STATES: Record<WorkflowRun['state'], [string, Tone]> = {
  RUNNING: ['Running', 'info'],
  WAITING: ['Waiting', 'info'],
  COMPLETED: ['Completed', 'ok'],
  EXITED: ['Exited', 'neutral'],
  FAILED: ['Failed', 'bad'],
  CANCELLED: ['Cancelled', 'neutral'],
}

const columns: Column<WorkflowRun>[] = [
  { header: 'Workflow', cell: (r) => <span className="wrap-anywhere">{r.workflowName || r.workflowId}</span> },
  {
    header: 'State',
    cell: (r) => (
      <span className="stacked">
        <Badge tone={STATES[r.state][1]}>{STATES[r.state][0]}</Badge>
        {r.currentStep && r.finishedAt === null && <span className="muted small">At step {r.currentStep}</span>}
        {r.error && <span className="small wrap-anywhere">{r.error}</span>}
      </span>
    ),
  },
  { header: 'Started', cell: (r) => <Time value={r.createdAt} /> },
  { header: 'Ended', cell: (r) => (r.finishedAt ? <Time value={r.finishedAt} /> : <span className="muted">—</span>) },
]

/** The contact's runs of the project's workflows, newest first, with their state. */
export function ContactRuns({ id }: { id: string }) {
  const { api } = useApi()
  return (
    <ServerPaged
      label="Workflow runs"
      queryKey={useProjectKey('contact', id, 'runs')}
      fetchPage={async (cursor, size) => {
        const { executions, total } = await contactApi(api).runs(id, cursor === null ? 1 : Number(cursor), size)
        return fromNumberedList(executions, total, cursor, size)
      }}
      empty={<Empty title="No workflow runs">Workflows this contact enters appear here, with how far each got.</Empty>}
    >
      {(runs) => <DataTable caption="Workflow runs of this contact" captionHidden columns={columns} rows={runs} rowKey={(r) => r.id} />}
    </ServerPaged>
  )
}
