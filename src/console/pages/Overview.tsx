import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { lazy, Suspense, useMemo, useState } from 'react'
import { Button } from 'react-aria-components'
import { Link } from 'wouter'
import { analyticsApi, type TimeSeries } from '../api/analytics.api.ts'
import { useApi } from '../api/context.tsx'
import { overviewApi, type DomainSummary, type ServerChecks } from '../api/overview.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { SendTestEmail } from './email/SendTestEmail.tsx'
import { GetStarted, useGetStartedDismissed } from './overview/GetStarted.tsx'
import { Card } from '../components/Card.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { Empty, ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { StatTile } from '../components/StatTile.tsx'
import { Segmented } from '../components/Segmented.tsx'
import { bucketName, chartData, chartSummary, checkWarnings, COMPLAINT_LIMIT, domainHealth, queueDepth, rangeOf, RANGES, RATES, rateData, rateSummary, SERIES, showRate, type RangeChoice } from '../lib/overview-view.ts'

// uPlot and its stylesheet load with the chart, only when a chart is shown.
const LineChart = lazy(() => import('../components/LineChart.tsx'))

type Row = TimeSeries['result'][number]

function MailTable({ series, range }: { series: TimeSeries; range: RangeChoice }) {
  const total: Row = { date: 'total', ...series.totalCounts }
  const columns: Column<Row>[] = [
    { header: series.bucket === 'hour' ? 'Hour (UTC)' : 'Day (UTC)', cell: (row) => (row === total ? <strong>Total</strong> : bucketName(row.date, series.bucket)) },
    ...SERIES.map(({ key, label }) => ({ header: label, align: 'end' as const, cell: (row: Row) => row[key] })),
  ]
  return <DataTable caption={`Mail by ${series.bucket}, ${range.label.toLowerCase()}`} columns={columns} rows={[...series.result, total]} rowKey={(row) => row.date} />
}

const percentTick = (value: number) => `${Number(value.toFixed(2))} %`
const COMPLAINT_THRESHOLD = [{ value: COMPLAINT_LIMIT, label: `Complaint limit ${COMPLAINT_LIMIT} %` }]

/** The rate a count's tile shows under it: delivered, bounced and complained as a share. */
function rateDetail(key: string, counts: TimeSeries['totalCounts']) {
  const rate = RATES.find((r) => (r.key === 'delivery' && key === 'delivered') || (r.key === 'bounce' && key === 'bounced') || (r.key === 'complaint' && key === 'complained'))
  if (!rate) return undefined
  const value = rate.of(counts)
  const over = rate.key === 'complaint' && value !== null && value >= COMPLAINT_LIMIT
  return <span className={over ? 'rate rate-over' : 'rate'}>{showRate(value)}{over ? ' · over the limit' : ''}</span>
}

/**
 * The project's mail over a range. `offerTestEmail`: its empty state has the Send test email
 * button, unless the Get started card shows it already (not dismissed, and no email yet), so that
 * the page never shows it twice.
 */
function Mail({ getStartedDismissed }: { getStartedDismissed: boolean }) {
  const { api } = useApi()
  const emailCount = useQuery({ queryKey: useProjectKey('emails', 'count'), queryFn: overviewApi(api).emailCount })
  const offerTestEmail = getStartedDismissed || (emailCount.data ?? 0) > 0
  const [rangeId, setRangeId] = useState(RANGES[0]!.id)
  const [asTable, setAsTable] = useState(false)
  const range = rangeOf(rangeId)
  const series = useQuery({
    queryKey: useProjectKey('analytics', range.id),
    // The answer keeps its range: while the next range loads, the last one's stays shown, named as it is.
    queryFn: async () => ({ range, series: await analyticsApi(api).timeSeries(range.query) }),
    placeholderData: keepPreviousData,
  })
  const shown = series.data?.series
  const shownRange = series.data?.range ?? range
  const data = useMemo(() => (shown ? chartData(shown) : undefined), [shown])
  const rates = useMemo(() => (shown ? rateData(shown) : undefined), [shown])
  const lines = useMemo(() => (shown ? SERIES.map((s) => ({ label: s.label, color: s.color, total: shown.totalCounts[s.key].toLocaleString() })) : []), [shown])
  const rateLines = useMemo(
    () => (shown ? RATES.filter((rate) => rate.key !== 'delivery').map((rate) => ({ label: rate.label, color: rate.color, total: showRate(rate.of(shown.totalCounts)) })) : []),
    [shown],
  )
  const none = shown && SERIES.every(({ key }) => shown.totalCounts[key] === 0)
  return (
    <section className="panel" aria-labelledby="mail-heading" aria-busy={series.isFetching}>
      <div className="overview-mail-head">
        <h2 id="mail-heading">Mail</h2>
        <Segmented label="Range" value={rangeId} options={RANGES} onChange={setRangeId} />
      </div>
      {series.error && !shown ? (
        <ErrorState error={series.error} retry={() => series.refetch()} />
      ) : !shown || !data ? (
        <Loading label="Loading the mail counts" />
      ) : (
        <>
          <dl className="stat-tiles" aria-label={`Totals, ${shownRange.label.toLowerCase()}`}>
            {SERIES.map(({ key, label }) => (
              <StatTile key={key} label={label} series={key} value={shown.totalCounts[key].toLocaleString()} detail={rateDetail(key, shown.totalCounts)} />
            ))}
          </dl>
          {none ? (
            <Empty title={`No mail in the ${shownRange.label.toLowerCase()}.`}>
              <p>
                Send with <code>POST /api/v1/emails</code> or the SMTP relay; what happens to it is counted here.
              </p>
              {offerTestEmail && <SendTestEmail primary />}
            </Empty>
          ) : (
            <Suspense fallback={<Loading label="Loading the chart" />}>
              <div className="chart-pair">
                <div>
                  <h3 className="chart-title">Mail</h3>
                  <LineChart label={chartSummary(shown, shownRange)} data={data} series={lines} />
                </div>
                <div>
                  <h3 className="chart-title">Bounce and complaint rates</h3>
                  <LineChart label={rateSummary(shown, shownRange)} data={rates!} series={rateLines} format={percentTick} thresholds={COMPLAINT_THRESHOLD} minTop={1} />
                </div>
              </div>
            </Suspense>
          )}
          <div className="overview-table-toggle">
            <Button className="button button-small" aria-expanded={asTable} aria-controls="mail-table" onPress={() => setAsTable(!asTable)}>
              {asTable ? 'Hide table' : 'Show as table'}
            </Button>
          </div>
          <div id="mail-table">{asTable && <MailTable series={shown} range={shownRange} />}</div>
          {series.error && <ErrorState error={series.error} retry={() => series.refetch()} />}
        </>
      )}
    </section>
  )
}

const STATE_NAMES: Record<string, string> = { scheduled: 'Scheduled', queued: 'Queued', sending: 'Sending', deferred: 'Deferred', paused: 'Paused' }

function Queue() {
  const { api } = useApi()
  const queue = useQuery({ queryKey: useProjectKey('queue', 'stats'), queryFn: overviewApi(api).queue })
  return (
    <Card title="Queue">
      {queue.error ? (
        <ErrorState error={queue.error} retry={() => queue.refetch()} />
      ) : !queue.data ? (
        <Loading label="Loading the queue" />
      ) : (
        <>
          <p className="stat-big">
            <span>{queueDepth(queue.data).toLocaleString()}</span> {queueDepth(queue.data) === 1 ? 'delivery waiting' : 'deliveries waiting'}
          </p>
          {Object.keys(queue.data.byState).length > 0 && (
            <ul className="plain-list">
              {Object.entries(queue.data.byState).map(([state, count]) => (
                <li key={state}>
                  {STATE_NAMES[state] ?? state}: {count.toLocaleString()}
                </li>
              ))}
            </ul>
          )}
          <p className="panel-foot">
            <Link href="/queue">Open the queue</Link>
          </p>
        </>
      )}
    </Card>
  )
}

function DomainItem({ domain }: { domain: DomainSummary }) {
  const health = domainHealth(domain)
  return (
    <li className="domain-health">
      <div className="domain-health-head">
        <span className="domain-name">{domain.name}</span>
        <span className={health.verified ? 'badge badge-ok' : 'badge badge-warn'}>{health.state}</span>
      </div>
      {health.problems.length > 0 && (
        <ul className="problem-list" aria-label={`Problems of ${domain.name}`}>
          {health.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
    </li>
  )
}

function Domains() {
  const { api } = useApi()
  const domains = useQuery({ queryKey: useProjectKey('domains'), queryFn: overviewApi(api).domains })
  return (
    <Card title="Domains">
      {domains.error ? (
        <ErrorState error={domains.error} retry={() => domains.refetch()} />
      ) : !domains.data ? (
        <Loading label="Loading the domains" />
      ) : domains.data.length === 0 ? (
        <Empty title="No sending domain yet.">
          <p>
            Mail is sent from a verified domain: <Link href="/domains">add one</Link>.
          </p>
        </Empty>
      ) : (
        <>
          <ul className="plain-list domain-list">
            {domains.data.map((domain) => (
              <DomainItem key={domain.id} domain={domain} />
            ))}
          </ul>
          <p className="panel-foot">
            <Link href="/domains">Open the domains</Link>
          </p>
        </>
      )}
    </Card>
  )
}

function Checks({ checks }: { checks: ServerChecks }) {
  const warnings = checkWarnings(checks.findings)
  if (checks.checkedAt === null) return <p className="muted">The server’s checks of its name, addresses and blocklists have not run yet; they run every hour.</p>
  if (warnings.length === 0) {
    return (
      <p>
        No warnings: the checks of <code>{checks.hostname}</code> found nothing wrong (<Time value={checks.checkedAt} />
        ).
      </p>
    )
  }
  return (
    <>
      <p className="muted">
        Checked <Time value={checks.checkedAt} /> for <code>{checks.hostname}</code>.
      </p>
      <ul className="plain-list warning-list" aria-label="Warnings">
        {warnings.map((finding) => (
          <li key={`${finding.check} ${finding.subject}`} className="warning-item">
            <span className={finding.status === 'unchecked' ? 'badge' : 'badge badge-warn'}>{finding.status === 'unchecked' ? 'Not checked' : finding.status === 'failed' ? 'Failed' : 'Warning'}</span>{' '}
            {finding.message}
            {finding.fix && <p className="field-hint">{finding.fix}</p>}
          </li>
        ))}
      </ul>
    </>
  )
}

function Reputation() {
  const { api } = useApi()
  const checks = useQuery({ queryKey: useProjectKey('server-checks'), queryFn: overviewApi(api).checks })
  return (
    <Card title="Reputation checks">
      {checks.error ? <ErrorState error={checks.error} retry={() => checks.refetch()} /> : !checks.data ? <Loading label="Loading the checks" /> : <Checks checks={checks.data} />}
    </Card>
  )
}

/** How the project's mail went over the last day, week or month; the queue, the domains and the server's checks. */
export default function Overview() {
  const { project } = useProject()
  const [dismissed, setDismissed] = useGetStartedDismissed(project.id)
  return (
    <>
      <PageHeader title="Overview" description="What happened to your mail, what waits in the queue, and whether your domains and the server are set up right." />
      {!dismissed && <GetStarted key={project.id} onDismiss={() => setDismissed(true)} />}
      <Mail getStartedDismissed={dismissed} />
      <div className="overview-grid">
        <Queue />
        <Domains />
      </div>
      <Reputation />
    </>
  )
}
