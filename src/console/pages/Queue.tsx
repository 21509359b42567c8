import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { useApi } from '../api/context.tsx'
import { QUEUE_STATES, queueApi, type QueueCounts, type QueuedDelivery, type QueueFilter } from '../api/queue.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { Field } from '../components/Field.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { PagedTable } from '../components/PagedTable.tsx'
import { Empty, ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { domainFilter, mayCancel, mayChangeQueue, mayRetry, STATE_WORDS, stateCounts, stateFilter, totalPending } from '../lib/queue-view.ts'
import { Card } from '../components/Card.tsx'

const STATE_TONES: Record<QueuedDelivery['state'], string> = {
  scheduled: 'badge badge-off',
  queued: 'badge badge-ok',
  sending: 'badge badge-ok',
  deferred: 'badge tone-wait',
  paused: 'badge badge-off',
}

function Counts({ counts, onDomain }: { counts: QueueCounts; onDomain: (domain: string) => void }) {
  return (
    <div className="queue-counts">
      <Card title="By state">
        <dl className="queue-states">
          {stateCounts(counts).map(({ state, count }) => (
            <div key={state} className="queue-state">
              <dt>
                {STATE_WORDS[state].label}
                <span className="field-hint">{STATE_WORDS[state].hint}</span>
              </dt>
              <dd>{count}</dd>
            </div>
          ))}
        </dl>
      </Card>
      <Card title="By destination">
        {counts.byDomain.length === 0 ? (
          <p className="muted">Nothing waits for any domain.</p>
        ) : (
          <DataTable
            caption="Waiting by destination domain"
            columns={[
              { header: 'Domain', cell: (row) => <span className="queue-domain">{row.domain}</span> },
              { header: 'Waiting', cell: (row) => row.count },
              {
                header: 'Show',
                align: 'end',
                cell: (row) => (
                  <Button className="button button-small" aria-label={`Show deliveries to ${row.domain}`} onPress={() => onDomain(row.domain)}>
                    Show
                  </Button>
                ),
              },
            ]}
            rows={counts.byDomain}
            rowKey={(row) => row.domain}
          />
        )}
      </Card>
    </div>
  )
}

function Filters({ filter, onChange }: { filter: QueueFilter; onChange: (filter: QueueFilter) => void }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const values = new FormData(event.currentTarget)
    onChange({ state: stateFilter(String(values.get('state'))), domain: domainFilter(String(values.get('domain') ?? '')) })
  }
  return (
    <Form onSubmit={submit} className="queue-filters" aria-label="Filter the deliveries" key={`${filter.state}|${filter.domain}`}>
      <div className="field">
        <label htmlFor="queue-state" className="field-label">
          State
        </label>
        <select id="queue-state" name="state" className="input" defaultValue={filter.state ?? ''}>
          <option value="">Every waiting state</option>
          {QUEUE_STATES.map((state) => (
            <option key={state} value={state}>
              {STATE_WORDS[state].label}
            </option>
          ))}
        </select>
      </div>
      <Field label="Destination domain" name="domain" defaultValue={filter.domain ?? ''} placeholder="example.com" />
      <div className="queue-filter-actions">
        <Button type="submit" className="button">
          Apply filters
        </Button>
        {(filter.state || filter.domain) && (
          <Button className="button" onPress={() => onChange({})}>
            Clear filters
          </Button>
        )}
      </div>
    </Form>
  )
}

function RetryOne({ delivery, onDone }: { delivery: QueuedDelivery; onDone: () => void }) {
  const { api } = useApi()
  const retry = useMutation({ mutationFn: () => queueApi(api).retry(delivery.id), onSuccess: onDone })
  return (
    <ConfirmDialog
      tone="plain"
      trigger="Retry"
      triggerLabel={`Retry ${delivery.recipient}`}
      title={`Retry ${delivery.recipient} now?`}
      confirm="Retry now"
      onConfirm={() => retry.mutateAsync()}
      pending={retry.isPending}
      error={retry.error}
    >
      <p>It is sent at the next round instead of waiting for its next attempt. If the receiving server still refuses it, it is deferred again.</p>
    </ConfirmDialog>
  )
}

function CancelOne({ delivery, onDone }: { delivery: QueuedDelivery; onDone: () => void }) {
  const { api } = useApi()
  const cancel = useMutation({ mutationFn: () => queueApi(api).cancel(delivery.id), onSuccess: onDone })
  return (
    <ConfirmDialog
      trigger="Cancel"
      triggerLabel={`Cancel ${delivery.recipient}`}
      title={`Cancel the delivery to ${delivery.recipient}?`}
      confirm="Cancel delivery"
      onConfirm={() => cancel.mutateAsync()}
      pending={cancel.isPending}
      error={cancel.error}
    >
      <p>It leaves the queue and is never sent; its email gets a CANCELLED event. Other recipients of the same email are not touched. This cannot be undone.</p>
    </ConfirmDialog>
  )
}

function RetryAll({ deferred, domain, onDone }: { deferred: number; domain?: string; onDone: (retried: number) => void }) {
  const { api } = useApi()
  const retry = useMutation({ mutationFn: () => queueApi(api).retryDeferred(domain), onSuccess: (answer) => onDone(answer.retried) })
  const scope = domain ? `deferred to ${domain}` : 'deferred'
  return (
    <ConfirmDialog
      tone="plain"
      trigger={domain ? `Retry all deferred to ${domain}` : 'Retry all deferred'}
      title={`Retry everything ${scope} now?`}
      confirm="Retry all now"
      onConfirm={() => retry.mutateAsync()}
      pending={retry.isPending}
      error={retry.error}
    >
      <p>
        {domain ? `Every deferred delivery to ${domain}` : `All ${deferred} deferred deliveries`} are sent at the next round instead of waiting for their next attempt. Servers that
        still refuse them defer them again.
      </p>
    </ConfirmDialog>
  )
}

/** The project's queue: what waits to be sent, counted by state and destination, listed with filters, retried or cancelled. */
export default function Queue() {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const queueKey = useProjectKey('queue')
  const [filter, setFilter] = useState<QueueFilter>({})
  const [notice, setNotice] = useState('')
  const counts = useQuery({ queryKey: [...queueKey, 'counts'], queryFn: queueApi(api).counts })
  const mayChange = mayChangeQueue(project.role)
  const refresh = () => queries.invalidateQueries({ queryKey: queueKey })
  const deferred = counts.data?.byState.deferred ?? 0
  const columns: Column<QueuedDelivery>[] = [
    {
      header: 'Recipient',
      cell: (d) => (
        <span className="queue-recipient">
          {d.recipient}
          <span className="field-hint">
            queued <Time value={d.createdAt} />
          </span>
        </span>
      ),
    },
    { header: 'State', cell: (d) => <span className={STATE_TONES[d.state]}>{STATE_WORDS[d.state]?.label ?? d.state}</span> },
    { header: 'Attempts', cell: (d) => d.attempts },
    { header: 'Next attempt', cell: (d) => <Time value={d.nextAttemptAt} /> },
    { header: 'Last answer', cell: (d) => (d.lastResponse ? <span className="queue-response">{d.lastResponse}</span> : <span className="muted">—</span>) },
    ...(mayChange
      ? [
          {
            header: 'Actions',
            align: 'end' as const,
            cell: (d: QueuedDelivery) => (
              <span className="queue-row-actions">
                {mayRetry(d) && <RetryOne delivery={d} onDone={refresh} />}
                {mayCancel(d) && <CancelOne delivery={d} onDone={refresh} />}
              </span>
            ),
          },
        ]
      : []),
  ]
  const filtered = Boolean(filter.state || filter.domain)
  return (
    <>
      <PageHeader
        title="Queue"
        description="Deliveries that have not left yet, one per recipient: scheduled, due, being sent, or deferred by the receiving server and to be tried again."
        actions={
          <>
            <Button className="button button-small" onPress={refresh}>
              Refresh
            </Button>
            {mayChange && deferred > 0 && (
              <RetryAll
                deferred={deferred}
                onDone={(retried) => {
                  setNotice(`${retried} deferred ${retried === 1 ? 'delivery is' : 'deliveries are'} due now.`)
                  refresh()
                }}
              />
            )}
          </>
        }
      />
      <p role="status" className={notice ? 'panel panel-notice' : 'visually-hidden'}>
        {notice}
      </p>
      {!mayChange && <p className="muted">Your role ({project.role}) can see the queue; an owner, admin or member retries and cancels deliveries.</p>}
      {counts.error ? (
        <ErrorState error={counts.error} retry={() => counts.refetch()} />
      ) : !counts.data ? (
        <Loading label="Counting the queue" />
      ) : (
        <>
          <p className="queue-total">
            <strong>{totalPending(counts.data)}</strong> {totalPending(counts.data) === 1 ? 'delivery waits' : 'deliveries wait'}.
          </p>
          <Counts counts={counts.data} onDomain={(domain) => setFilter({ domain })} />
        </>
      )}
      <section aria-labelledby="queue-deliveries" className="queue-list">
        <h2 id="queue-deliveries">Deliveries</h2>
        <Filters filter={filter} onChange={setFilter} />
        <PagedTable
          key={`${filter.state}|${filter.domain}`}
          caption={filtered ? `Deliveries${filter.state ? `, ${STATE_WORDS[filter.state].label.toLowerCase()}` : ''}${filter.domain ? ` to ${filter.domain}` : ''}` : 'Deliveries waiting'}
          queryKey={[...queueKey, 'deliveries', filter]}
          fetchPage={queueApi(api).page(filter)}
          columns={columns}
          rowKey={(d) => String(d.id)}
          pageSize={25}
          empty={<Empty title={filtered ? 'No delivery waits that matches these filters.' : 'Nothing waits: every delivery has left.'} />}
        />
      </section>
    </>
  )
}
