import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { domainsApi, type Domain } from '../../api/domains.api.ts'
import { reportsApi, type DomainDmarc } from '../../api/reports.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { Card } from '../../components/Card.tsx'
import { CodeBlock } from '../../components/CodeBlock.tsx'
import { StatTile } from '../../components/StatTile.tsx'
import { Empty, ErrorState, Loading } from '../../components/States.tsx'
import { Segmented } from '../../components/Segmented.tsx'
import { counted, DEFAULT_PERIOD, dmarcRecordOf, periodOf, periodStart, PERIODS, rateOf } from '../../lib/reports-view.ts'
import { DomainSources } from './DomainSources.tsx'

/** The documentation page that says where DMARC reports go and how to publish the address. */
const DOCS = '/docs/features/domains'

/** The record that sends a domain's reports here, to copy; or where to find it when the server lists none. */
function PublishRecord({ domain }: { domain: Domain }) {
  const record = dmarcRecordOf(domain.dnsRecords ?? [])
  if (!record) return <p>Publish a DMARC record for {domain.name} with a rua= address on this server (see its page under Domains).</p>
  return <CodeBlock label={`DMARC record for ${domain.name}`} title={`TXT ${record.name}`} code={record.value} />
}

/** What to do to get reports: the rua= address of each domain, and where the docs say more. */
function HowToGetReports({ names }: { names: string[] }) {
  const { api } = useApi()
  const domains = useQuery({ queryKey: useProjectKey('domains'), queryFn: domainsApi(api).list })
  const shown = (domains.data ?? []).filter((d) => names.includes(d.name))
  return (
    <div className="reports-howto">
      <p>
        Receivers such as Gmail and Outlook send a daily aggregate report to the address in a domain's DMARC record (its <code>rua=</code> tag). Publish the record below
        so that they send it to this server; the first reports come a day or two later. <a href={DOCS}>How DMARC reports reach Mailstead</a>.
      </p>
      {domains.isPending ? <Loading label="Loading the domains' records" /> : shown.map((domain) => <PublishRecord key={domain.id} domain={domain} />)}
    </div>
  )
}

/** One domain with reports: its totals, the reporting organisations and its sources. */
function DomainCard({ line, from, periodLabel }: { line: DomainDmarc; from: string; periodLabel: string }) {
  const { totals, sources } = line
  return (
    <Card title={line.domain.name} description={`${counted(line.reports, 'aggregate report')} in the last ${periodLabel}`}>
      <dl className="stat-tiles reports-tiles" aria-label={`DMARC totals for ${line.domain.name}`}>
        <StatTile label="Messages" value={totals.messages.toLocaleString()} detail={counted(sources.total, 'source')} />
        <StatTile label="Pass DMARC" value={totals.dmarcPass.toLocaleString()} detail={rateOf(totals.dmarcPass, totals.messages)} />
        <StatTile label="Fail DMARC" value={totals.dmarcFail.toLocaleString()} detail={rateOf(totals.dmarcFail, totals.messages)} />
        <StatTile label="Not this server" value={totals.fromElsewhere.toLocaleString()} detail={`${rateOf(totals.fromElsewhere, totals.messages)} · ${counted(sources.notThisServer, 'source')}`} />
      </dl>
      <DomainSources domain={line.domain} from={from} />
    </Card>
  )
}

/** Per domain of the project, what receivers' DMARC aggregate reports say over the period chosen. */
export function DmarcTab() {
  const { api } = useApi()
  const [periodId, setPeriodId] = useState<string>(DEFAULT_PERIOD)
  const period = periodOf(periodId)
  const from = periodStart(period.days, Date.now())
  const overview = useQuery({
    queryKey: useProjectKey('reports', 'dmarc', from),
    queryFn: async () => ({ period, answer: await reportsApi(api).dmarc(from) }),
    placeholderData: keepPreviousData,
  })
  const shown = overview.data
  const withReports = shown?.answer.domains.filter((d) => d.reports > 0) ?? []
  const without = shown?.answer.domains.filter((d) => d.reports === 0) ?? []
  return (
    <div aria-busy={overview.isFetching}>
      <div className="reports-toolbar">
        <Segmented label="Period" value={periodId} options={PERIODS} onChange={setPeriodId} />
      </div>
      {overview.error && !shown ? (
        <ErrorState error={overview.error} retry={() => overview.refetch()} />
      ) : !shown ? (
        <Loading label="Loading the DMARC reports" />
      ) : shown.answer.total === 0 ? (
        <Empty title="No sending domain yet.">
          <p>
            DMARC reports are about a domain you send from. <Link href="/domains">Add a domain</Link>, publish its records, and receivers' reports will show here.
          </p>
        </Empty>
      ) : withReports.length === 0 ? (
        <Empty title={`No DMARC report in the last ${shown.period.label}.`}>
          <HowToGetReports names={without.map((d) => d.domain.name)} />
        </Empty>
      ) : (
        <>
          {withReports.map((line) => (
            <DomainCard key={line.domain.id} line={line} from={shown.answer.from} periodLabel={shown.period.label} />
          ))}
          {without.length > 0 && (
            <Card title="No reports yet" description={`${without.map((d) => d.domain.name).join(', ')}: no report in the last ${shown.period.label}.`}>
              <HowToGetReports names={without.map((d) => d.domain.name)} />
            </Card>
          )}
          {shown.answer.total > shown.answer.domains.length && <p className="muted">The first {shown.answer.domains.length} of {shown.answer.total} domains are shown.</p>}
        </>
      )}
    </div>
  )
}
