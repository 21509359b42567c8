import { useQuery } from '@tanstack/react-query'
import { useApi } from '../../api/context.tsx'
import { reportsApi, type DmarcSource } from '../../api/reports.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { Badge } from '../../components/Badge.tsx'
import { ErrorState, Loading } from '../../components/States.tsx'
import { DataTable, type Column } from '../../components/Table.tsx'
import { checkOf, counted, dispositionOf, rateOf, sourceStanding } from '../../lib/reports-view.ts'

const columns: Column<DmarcSource>[] = [
  {
    header: 'Source',
    sortValue: (s) => s.ip,
    cell: (s) => {
      const standing = sourceStanding(s)
      return (
        <div className="stacked cell-stack">
          <code>{s.ip}</code>
          <Badge tone={standing.tone}>{standing.label}</Badge>
          {s.flag && <span className="muted small">{s.flag}</span>}
        </div>
      )
    },
  },
  { header: 'Messages', align: 'numeric', sortValue: (s) => s.messages, cell: (s) => s.messages.toLocaleString() },
  { header: 'DMARC pass', align: 'numeric', sortValue: (s) => s.dmarcPass / Math.max(s.messages, 1), cell: (s) => `${s.dmarcPass.toLocaleString()} (${rateOf(s.dmarcPass, s.messages)})` },
  { header: 'DKIM', sortValue: (s) => s.dkimAligned / Math.max(s.messages, 1), cell: (s) => checkOf(s.dkimPass, s.dkimAligned, s.messages) },
  { header: 'SPF', sortValue: (s) => s.spfAligned / Math.max(s.messages, 1), cell: (s) => checkOf(s.spfPass, s.spfAligned, s.messages) },
  { header: 'Disposition', sortValue: (s) => s.quarantined + s.rejected, cell: (s) => dispositionOf(s) },
  { header: 'Seen', priority: 'low', sortValue: (s) => s.lastDay, cell: (s) => <span className="cell-nowrap">{s.firstDay === s.lastDay ? s.firstDay : `${s.firstDay} to ${s.lastDay}`}</span> },
]

/** A domain's reporting organisations and the sources its reports name (GET /api/v1/domains/{id}/dmarc). */
export function DomainSources({ domain, from }: { domain: { id: number; name: string }; from: string }) {
  const { api } = useApi()
  const summary = useQuery({ queryKey: useProjectKey('reports', 'dmarc', domain.id, from), queryFn: () => reportsApi(api).domainDmarc(domain.id, from) })
  if (summary.error) return <ErrorState error={summary.error} retry={() => summary.refetch()} />
  if (!summary.data) return <Loading label={`Loading the sources of ${domain.name}`} />
  const { reports, sources, sourceCount, warning } = summary.data
  return (
    <>
      {warning && (
        <p className="panel panel-caution">
          {warning}
        </p>
      )}
      <h3 className="reports-subheading">Reporting organisations</h3>
      <ul className="reporters" aria-label={`Organisations reporting on ${domain.name}`}>
        {reports.reporters.map((r) => (
          <li key={r.orgName}>
            <span className="reporter-name">{r.orgName}</span>
            <span className="muted">
              {counted(r.reports, 'report')}, {counted(r.messages, 'message')}
            </span>
          </li>
        ))}
      </ul>
      <h3 className="reports-subheading">Sources</h3>
      <DataTable caption={`Sources sending as ${domain.name}`} captionHidden columns={columns} rows={sources} rowKey={(s) => s.ip} defaultSort={{ key: 'Messages', direction: 'descending' }} />
      {sourceCount > sources.length && <p className="muted">The {sources.length.toLocaleString()} sources with the most messages of {sourceCount.toLocaleString()} are listed.</p>}
    </>
  )
}
