import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useId, useState } from 'react'
import { Button, Switch } from 'react-aria-components'
import { Link, useLocation } from 'wouter'
import { useApi } from '../api/context.tsx'
import { domainsApi, type DnsRecord, type Domain, type Tracking } from '../api/domains.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { CopyButton } from '../components/CopyButton.tsx'
import { FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { ErrorState, Loading } from '../components/States.tsx'
import { Time } from '../components/Time.tsx'
import { domainStatus, recordPurpose, recordVerdict, zoneFile, zoneFileName, type Verdict } from '../lib/domains-view.ts'
import { Card } from '../components/Card.tsx'
import { downloadText } from '../lib/download.ts'

/** The roles that may add, verify, change and remove domains (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
export const MANAGERS = ['owner', 'admin']

/** How often the page asks whether a check it started has ended, and for how long at most. */
const POLL_MS = 750
const POLL_FOR_MS = 60_000

const TONES = { ok: 'badge badge-ok', bad: 'badge badge-bad', wait: 'badge badge-wait', warn: 'badge badge-wait' } as const

export function StatusBadge({ verdict }: { verdict: Verdict }) {
  return <span className={TONES[verdict.tone]}>{verdict.label}</span>
}

/** One record: where and what to publish (each with a copy button), and what the last check found. */
function RecordCard({ record, checked }: { record: DnsRecord; checked: boolean }) {
  const heading = useId()
  const purpose = recordPurpose(record)
  const verdict = recordVerdict(record, checked)
  const bad = verdict.tone === 'bad' || verdict.tone === 'warn'
  return (
    <section className={`dns-record dns-record-${record.unpublishable && verdict.tone !== 'bad' ? 'warn' : verdict.tone}`} aria-labelledby={heading}>
      <div className="dns-record-head">
        <h3 id={heading}>
          {purpose} <span className="muted">{record.type} record</span>
        </h3>
        <span className="badge">{record.recommended ? 'Recommended' : 'Required'}</span>
        <span className="dns-verdict">
          <span className="visually-hidden">Verdict: </span>
          <StatusBadge verdict={verdict} />
        </span>
      </div>
      <dl className="dns-facts">
        <dt>Name</dt>
        <dd className="dns-copy">
          <code className="dns-value">{record.name}</code>
          <CopyButton value={record.name} label={`${purpose} name`} />
        </dd>
        {record.type === 'MX' && (
          <>
            <dt>Priority</dt>
            <dd>
              <code>{record.priority}</code>
            </dd>
          </>
        )}
        <dt>{checked ? 'Expected' : 'Value'}</dt>
        {record.unpublishable ? (
          // A value that cannot work (`MX 10 vm.`) is not offered for copying: why, instead.
          <dd className="dns-unpublishable">Cannot be published yet: {record.unpublishable}.</dd>
        ) : (
          <dd className="dns-copy">
            <code className="dns-value">{record.value}</code>
            <CopyButton value={record.value} label={`${purpose} value`} />
          </dd>
        )}
        {checked && (
          <>
            <dt>Found</dt>
            <dd>
              {record.found === null ? (
                <span className="muted">Nothing</span>
              ) : record.found === record.value ? (
                <span className="muted">The same as expected</span>
              ) : (
                <code className={bad ? 'dns-value dns-found-bad' : 'dns-value'}>{record.found}</code>
              )}
            </dd>
          </>
        )}
        {checked && record.problem && (
          <>
            <dt>Problem</dt>
            <dd className={verdict.tone === 'bad' ? 'dns-problem' : undefined}>{record.problem}</dd>
          </>
        )}
        <dt>TTL</dt>
        <dd>{record.ttl} seconds</dd>
      </dl>
    </section>
  )
}

function Records({ domain }: { domain: Domain }) {
  const checked = domain.lastCheckedTime !== null
  const good = domain.dnsRecords.filter((r) => r.status === 'SUCCESS').length
  const zone = zoneFile(domain)
  return (
    <section className="panel" aria-labelledby="dns-records">
      <div className="snippet-head dns-records-head">
        <h2 id="dns-records">DNS records</h2>
        <div className="dns-records-actions" role="group" aria-labelledby="zone-file">
          <span id="zone-file" className="muted">
            Zone file
          </span>
          <CopyButton value={zone} label="zone file" />
          <Button className="button button-small" aria-label="Download zone file" onPress={() => downloadText(zone, zoneFileName(domain), 'text/dns')}>
            Download
          </Button>
        </div>
      </div>
      <p className="muted" role="status">
        {checked ? `${good} of ${domain.dnsRecords.length} records right at the last check.` : 'Not checked yet.'} Publish them at your DNS provider; most zone editors also import the zone
        file.
      </p>
      <div className="dns-records">
        {domain.dnsRecords.map((record) => (
          <RecordCard key={`${record.type} ${record.name} ${record.value}`} record={record} checked={checked} />
        ))}
      </div>
    </section>
  )
}

function TrackingPanel({ domain, mayManage, onChanged }: { domain: Domain; mayManage: boolean; onChanged: (domain: Domain) => void }) {
  const { api } = useApi()
  const change = useMutation({ mutationFn: (body: Tracking) => domainsApi(api).setTracking(domain.id, body), onSuccess: onChanged })
  const shown = (field: keyof Tracking) => (change.isPending && change.variables[field] !== undefined ? change.variables[field]! : domain[field])
  const rows: Array<{ field: keyof Tracking; label: string; hint: string }> = [
    { field: 'openTracking', label: 'Open tracking', hint: 'Marketing mail (campaigns, workflows, marketing templates): an invisible image tells when it is opened.' },
    { field: 'clickTracking', label: 'Click tracking', hint: 'Marketing mail: links go through this server, which tells which were clicked.' },
    { field: 'transactionalOpenTracking', label: 'Transactional opens', hint: 'The same image in receipts, resets and codes. It costs them spam points: off unless you need it.' },
    { field: 'transactionalClickTracking', label: 'Transactional clicks', hint: 'Their links through this server; links that carry a token, code or key never are.' },
  ]
  return (
    <Card title="Tracking">
      {mayManage && <FormErrors error={change.error} fields={[]} />}
      <ul className="plain-list tracking-list">
        {rows.map(({ field, label, hint }) => (
          <li key={field}>
            {mayManage ? (
              <Switch className="switch" isSelected={shown(field)} isDisabled={change.isPending} onChange={(on) => change.mutate({ [field]: on })}>
                <span className="switch-track" aria-hidden="true">
                  <span className="switch-thumb" />
                </span>
                {label}
              </Switch>
            ) : (
              <p className="tracking-state">
                {label}: <strong>{domain[field] ? 'On' : 'Off'}</strong>
              </p>
            )}
            <p className="field-hint">{hint}</p>
          </li>
        ))}
      </ul>
    </Card>
  )
}

function RemoveDomain({ domain, onRemoved }: { domain: Domain; onRemoved: () => void }) {
  const { api } = useApi()
  const remove = useMutation({ mutationFn: () => domainsApi(api).remove(domain.id), onSuccess: onRemoved })
  return (
    <Card title="Remove the domain">
      <p className="muted">Mail from its addresses is refused afterwards. Its DNS records can then be taken down.</p>
      <ConfirmDialog
        trigger="Delete domain"
        triggerLabel={`Delete domain ${domain.name}`}
        title={`Delete ${domain.name}?`}
        confirm="Delete domain"
        onConfirm={() => remove.mutateAsync()}
        pending={remove.isPending}
        error={remove.error}
      >
        <p className="dialog-text">
          This project can no longer send from <strong>{domain.name}</strong>, and its DKIM keys are deleted: adding it again makes new ones, to publish again. This cannot be undone.
        </p>
      </ConfirmDialog>
    </Card>
  )
}

/** A check started here: the last check's time before it, to see when it has ended. */
interface Waiting {
  before: string | null
  since: number
}

/** One domain: its status, the records to publish with their verdicts, "Verify now", tracking and removal. */
export function DomainPage({ id }: { id: number }) {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const listKey = useProjectKey('domains')
  const queryKey = [...listKey, id]
  const [, navigate] = useLocation()
  const [waiting, setWaiting] = useState<Waiting | null>(null)
  const [slow, setSlow] = useState(false)
  const domain = useQuery({ queryKey, queryFn: () => domainsApi(api).get(id), refetchInterval: waiting ? POLL_MS : false })
  const mayManage = MANAGERS.includes(project.role)
  const verify = useMutation({
    mutationFn: () => domainsApi(api).verify(id),
    onMutate: () => {
      setSlow(false)
      setWaiting({ before: domain.data?.lastCheckedTime ?? null, since: Date.now() })
    },
    onSuccess: () => queries.invalidateQueries({ queryKey, exact: true }),
    onError: () => setWaiting(null),
  })
  const data = domain.data
  useEffect(() => {
    if (!waiting || !data) return
    if (data.lastCheckedTime !== waiting.before && !data.isVerifying) {
      setWaiting(null)
      void queries.invalidateQueries({ queryKey: listKey, exact: true })
    } else if (Date.now() - waiting.since > POLL_FOR_MS) {
      setWaiting(null)
      setSlow(true)
    }
  }, [data, waiting, queries, listKey])
  const changed = (updated: Domain) => {
    queries.setQueryData(queryKey, updated)
    void queries.invalidateQueries({ queryKey: listKey, exact: true })
  }
  const removed = () => {
    queries.removeQueries({ queryKey, exact: true })
    void queries.invalidateQueries({ queryKey: listKey, exact: true })
    navigate('/domains')
  }

  const back = (
    <p className="back-link">
      <Link href="/domains">← All domains</Link>
    </p>
  )
  if (domain.error) {
    return (
      <>
        {back}
        <PageHeader title="Domain" />
        <ErrorState error={domain.error} retry={() => domain.refetch()} />
      </>
    )
  }
  if (!data) {
    return (
      <>
        {back}
        <PageHeader title="Domain" />
        <Loading label="Loading the domain" />
      </>
    )
  }
  const checked = data.lastCheckedTime !== null
  const checking = waiting !== null || verify.isPending
  return (
    <>
      {back}
      <PageHeader
        title={data.name}
        description={
          <span className="domain-summary">
            <StatusBadge verdict={domainStatus(data.status)} />
            <span>Region {data.region}</span>
            {data.lastCheckedTime && (
              <span>
                Last checked <Time value={data.lastCheckedTime} />
              </span>
            )}
          </span>
        }
        actions={
          mayManage && (
            <Button className="button button-primary" onPress={() => verify.mutate()} isPending={checking}>
              {checking ? 'Checking…' : 'Verify now'}
            </Button>
          )
        }
      />
      <div role="status" className="domain-check-status">
        {checking ? <p className="muted">Checking the DNS records…</p> : slow ? <p className="muted">The check is taking long; its verdicts show here once it ends.</p> : null}
      </div>
      {mayManage && <FormErrors error={verify.error} fields={[]} />}
      {!checked && mayManage && (
        <section className="panel panel-notice" aria-labelledby="next-step">
          <h2 id="next-step">Step 2 of 2: publish these records</h2>
          <p>
            Add each record below at your DNS provider (copy each, or download the zone file), then press <strong>Verify now</strong>. The server also checks by itself from time to time;
            the domain can send once its required records are right.
          </p>
        </section>
      )}
      {data.hostnameWarning && (
        <p className="panel panel-caution" id="hostname-warning">
          {data.hostnameWarning}
        </p>
      )}
      {data.status !== 'SUCCESS' && data.errorMessage && <p className="panel panel-warning">{data.errorMessage}</p>}
      <Records domain={data} />
      <TrackingPanel domain={data} mayManage={mayManage} onChanged={changed} />
      {mayManage && <RemoveDomain domain={data} onRemoved={removed} />}
    </>
  )
}
