import type { ReactNode } from 'react'
import { Label, Radio, RadioGroup } from 'react-aria-components'
import { Link, useLocation, useSearch } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { reportsApi, type ReceivedReport, type ReportKind } from '../../api/reports.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { Badge } from '../../components/Badge.tsx'
import { FilterBar } from '../../components/FilterBar.tsx'
import { PagedTable } from '../../components/PagedTable.tsx'
import { Empty } from '../../components/States.tsx'
import type { Column } from '../../components/Table.tsx'
import { Time } from '../../components/Time.tsx'
import { actionBadge, effectLabel, kindLabel, KINDS, reportReason } from '../../lib/reports-view.ts'

const none = <span className="muted">—</span>

/** Each recipient the report named, one line each (a DSN may name several of one email's recipients). */
const perAction = (report: ReceivedReport, cell: (action: ReceivedReport['actions'][number]) => ReactNode) =>
  report.actions.length === 0 ? (
    none
  ) : (
    <ul className="plain-list cell-lines">
      {report.actions.map((action, i) => (
        <li key={i}>{cell(action)}</li>
      ))}
    </ul>
  )

const columns: Column<ReceivedReport>[] = [
  {
    header: 'Received',
    sortValue: (r) => r.receivedAt,
    cell: (r) => (
      <span className="cell-nowrap">
        <Time value={r.receivedAt} />
      </span>
    ),
  },
  // On a phone "What it said" names the kind already (a bounce, a complaint).
  { header: 'Kind', priority: 'low', sortValue: (r) => kindLabel(r.kind), cell: (r) => kindLabel(r.kind) },
  { header: 'Recipient', sortValue: (r) => r.actions[0]?.recipient, cell: (r) => perAction(r, (a) => a.recipient) },
  {
    header: 'Email',
    cell: (r) =>
      perAction(r, (a) => (
        <Link href={`/emails/${a.emailId}`} className="cell-nowrap" aria-label={`View email to ${a.recipient}`}>
          View email
        </Link>
      )),
  },
  {
    header: 'What it said',
    sortValue: (r) => r.actions[0]?.effect,
    cell: (r) =>
      perAction(r, (a) => (
        <span className="stacked cell-stack">
          <span>{effectLabel(a.effect)}</span>
          {a.said && <span className="muted small">{a.said}</span>}
        </span>
      )),
  },
  {
    header: 'What Mailstead did',
    sortValue: (r) => (r.actions[0] ? actionBadge(r.actions[0]).label : reportReason(r)),
    cell: (r) =>
      r.actions.length === 0 ? (
        <span className="muted">{reportReason(r)}</span>
      ) : (
        perAction(r, (a) => {
          const badge = actionBadge(a)
          return (
            <span className="stacked cell-stack">
              <Badge tone={badge.tone}>{badge.label}</Badge>
              <span className="small">{a.description}</span>
            </span>
          )
        })
      ),
  },
]

const isKind = (value: string | null): value is ReportKind => KINDS.some((k) => k.id === value)

/** The bounce (DSN) and complaint (ARF) reports received about the project's mail, newest first, with what was done about each. */
export function ReceivedTab() {
  const { api } = useApi()
  const params = new URLSearchParams(useSearch())
  const [, navigate] = useLocation()
  const asked = params.get('kind')
  const kind = isKind(asked) ? asked : undefined
  const setKind = (next: ReportKind | undefined) => navigate(next ? `/reports/bounces?kind=${next}` : '/reports/bounces')
  const queryKey = useProjectKey('reports', 'received')
  const kindName = kind && KINDS.find((k) => k.id === kind)!.label
  return (
    <>
      <FilterBar
        chips={kind ? [{ id: 'kind', label: `Kind: ${kindName}`, onRemove: () => setKind(undefined) }] : []}
        filters={
          <RadioGroup value={kind ?? 'all'} onChange={(value) => setKind(isKind(value) ? value : undefined)} className="radio-group">
            <Label className="field-label">Kind</Label>
            <Radio value="all" className="radio">
              All reports
            </Radio>
            {KINDS.map((k) => (
              <Radio key={k.id} value={k.id} className="radio">
                {k.label}
              </Radio>
            ))}
          </RadioGroup>
        }
      />
      <PagedTable
        // Another kind starts again at its first page.
        key={kind ?? 'all'}
        caption="Bounces and complaints received"
        queryKey={[...queryKey, { kind }]}
        fetchPage={(cursor, size) => reportsApi(api).received(cursor, size, kind)}
        columns={columns}
        rowKey={(r) => String(r.id)}
        empty={
          kind ? (
            <Empty title={`No ${kindName!.toLowerCase()} report received.`} />
          ) : (
            <Empty title="No bounce or complaint report received yet.">
              <p>
                When a receiving server bounces your mail after accepting it (a DSN) or a mailbox provider's feedback loop reports a complaint (ARF), the report comes to this
                server's MX listener and shows here, with what Mailstead did: suppressing the address, or recording the bounce on the email.
              </p>
            </Empty>
          )
        }
      />
    </>
  )
}
