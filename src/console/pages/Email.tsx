import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link } from 'wouter'
import { useApi } from '../api/context.tsx'
import { emailsApi, type Delivery, type Email as EmailData } from '../api/emails.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { StatusBadge } from '../components/EmailStatus.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { isoOfLocalInput, localInputOf } from '../lib/email-filters.ts'
import { MessageTabs } from './email/MessageTabs.tsx'
import { Timeline } from './email/Timeline.tsx'
import { pollEvery } from '../lib/event-words.ts'
import { useSubmitOnce } from '../components/SubmitButton.tsx'
import { Card } from '../components/Card.tsx'

/** The roles that may send, and so cancel and reschedule (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
const SENDERS = ['owner', 'admin', 'member']

const STATE_NAMES: Record<Delivery['state'], string> = {
  scheduled: 'Scheduled',
  queued: 'Queued',
  sending: 'Sending',
  deferred: 'Deferred, to retry',
  paused: 'Paused',
  delivered: 'Delivered',
  bounced: 'Bounced',
  failed: 'Failed',
  cancelled: 'Cancelled',
  suppressed: 'Suppressed',
}

const DELIVERY_TONES: Partial<Record<Delivery['state'], string>> = { delivered: 'ok', bounced: 'bad', failed: 'bad', suppressed: 'bad', scheduled: 'wait', queued: 'wait', sending: 'wait', deferred: 'wait' }

function Deliveries({ deliveries }: { deliveries: Delivery[] }) {
  if (deliveries.length === 0) return <p className="muted">No delivery yet.</p>
  const columns: Column<Delivery>[] = [
    { header: 'Recipient', cell: (d) => <span className="wrap-words">{d.recipient}</span> },
    {
      header: 'State',
      cell: (d) => (
        <span className="stacked">
          <span className={`badge badge-status badge-${DELIVERY_TONES[d.state] ?? 'plain'}`}>{STATE_NAMES[d.state] ?? d.state}</span>
          <span className="muted small">{d.attempts === 1 ? '1 attempt' : `${d.attempts} attempts`}</span>
        </span>
      ),
    },
    {
      header: 'Server',
      cell: (d) =>
        d.mx || d.ip ? (
          <span className="stacked wrap-words">
            <span>{[d.mx, d.ip && `(${d.ip})`].filter(Boolean).join(' ')}</span>
            <span className="muted small">
              {d.tls ? `${d.tls.version}, certificate ${d.tls.verified ? 'verified' : 'not verified'}${d.tls.mtaSts ? `, MTA-STS ${d.tls.mtaSts.mode}` : ''}` : 'No TLS'}
              {d.dkimDomains.length > 0 && ` · DKIM ${d.dkimDomains.join(', ')}`}
            </span>
          </span>
        ) : (
          <span className="muted">Not reached yet</span>
        ),
    },
    { header: 'Last response', cell: (d) => (d.lastResponse ? <span className="wrap-words response">{d.lastResponse}</span> : <span className="muted">—</span>) },
    {
      header: 'When',
      cell: (d) => (
        <span className="stacked">
          <Time value={d.updatedAt} />
          {d.nextAttemptAt && (
            <span className="muted small">
              Next attempt <Time value={d.nextAttemptAt} />
            </span>
          )}
        </span>
      ),
    },
  ]
  return <DataTable caption="Delivery to each recipient" columns={columns} rows={deliveries} rowKey={(d) => d.recipient} />
}

function RawDownload({ email }: { email: EmailData }) {
  const { api } = useApi()
  const download = useMutation({
    mutationFn: () => emailsApi(api).raw(email.id),
    onSuccess: (blob) => {
      const url = URL.createObjectURL(blob)
      const link = document.createElement('a')
      link.href = url
      link.download = `${email.id.replace(/[^\w-]/g, '')}.eml`
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(url), 10_000)
    },
  })
  return (
    <div className="raw-download">
      <Button className="button" onPress={() => download.mutate()} isPending={download.isPending}>
        Download raw message (.eml)
      </Button>
      {download.error != null && <ErrorState error={download.error} />}
    </div>
  )
}

/** Reschedule or cancel a scheduled email. */
function ScheduledActions({ email, onChanged }: { email: EmailData; onChanged: () => void }) {
  const { api } = useApi()
  const reschedule = useMutation({ mutationFn: (at: string) => emailsApi(api).reschedule(email.id, at), onSuccess: onChanged })
  const cancel = useMutation({ mutationFn: () => emailsApi(api).cancel(email.id), onSuccess: onChanged })
  const [problem, setProblem] = useState<string>()
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const at = isoOfLocalInput(String(new FormData(event.currentTarget).get('scheduledAt') ?? ''))
    setProblem(at ? undefined : 'Choose a day and time')
    if (at) once(() => reschedule.mutateAsync(at))
  }
  const error = problem ?? fieldError(reschedule.error, 'scheduledAt')
  return (
    <section className="panel" aria-labelledby="scheduled">
      <h2 id="scheduled">Scheduled</h2>
      <p>
        It is sent at <Time value={email.scheduledAt} />. Until then you can send it at another time, or not at all.
      </p>
      <Form onSubmit={submit} className="form reschedule" validationBehavior="aria">
        <FormErrors error={reschedule.error} fields={['scheduledAt']} />
        <div className="field">
          <label htmlFor="scheduled-at" className="field-label">
            Send at (your time)
          </label>
          <input
            id="scheduled-at"
            name="scheduledAt"
            type="datetime-local"
            className="input"
            required
            defaultValue={email.scheduledAt ? localInputOf(email.scheduledAt) : ''}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'scheduled-at-error' : undefined}
          />
          {error && (
            <span id="scheduled-at-error" className="field-error">
              {error}
            </span>
          )}
        </div>
        <div className="filter-actions">
          <Button type="submit" className="button button-primary" isPending={reschedule.isPending}>
            Reschedule
          </Button>
          <ConfirmDialog trigger="Cancel this email" title="Cancel this email?" confirm="Cancel the email" onConfirm={() => cancel.mutateAsync()} pending={cancel.isPending} error={cancel.error}>
            <p>It will not be sent to anyone. This cannot be undone.</p>
          </ConfirmDialog>
        </div>
      </Form>
    </section>
  )
}

function Addresses({ label, list }: { label: string; list: string[] }) {
  if (list.length === 0) return null
  return (
    <>
      <dt>{label}</dt>
      <dd className="wrap-anywhere">{list.join(', ')}</dd>
    </>
  )
}

/** The email's status and, per recipient, the status its delivery's state stands for: one still queued keeps the page reading. */
const DELIVERY_STATUS: Partial<Record<Delivery['state'], string>> = { queued: 'QUEUED', sending: 'QUEUED', deferred: 'DELIVERY_DELAYED', scheduled: 'SCHEDULED', paused: 'DELIVERY_DELAYED' }
const movingStatuses = (email: EmailData) => [email.status, ...email.deliveries.flatMap((d) => DELIVERY_STATUS[d.state] ?? [])]

/** One email: what it is, its events, each recipient's delivery, and its message (rendered, headers, receiver checks). */
export function EmailPage({ id }: { id: string }) {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const queryKey = useProjectKey('email', id)
  // Read again while it moves (queued, sent, a recipient waiting): its status and timeline change with no reload.
  const email = useQuery({ queryKey, queryFn: () => emailsApi(api).get(id), refetchInterval: (query) => (query.state.data ? pollEvery(movingStatuses(query.state.data)) : false) })
  const changed = () => {
    queries.invalidateQueries({ queryKey })
    queries.invalidateQueries({ queryKey: ['project', project.id, 'emails'] })
  }
  // A sandbox project's mail is read as an inbox: the message first, then how it went.
  const sandbox = project.sandbox
  const back = (
    <Link href="/emails" className="back-link">
      {sandbox ? '← Inbox' : '← All emails'}
    </Link>
  )
  if (email.error)
    return (
      <>
        {back}
        <PageHeader title="Email" />
        <ErrorState error={email.error} retry={() => email.refetch()} />
      </>
    )
  if (!email.data) return <Loading label="Loading the email" />
  const e = email.data
  const mayChange = SENDERS.includes(project.role) && e.status === 'SCHEDULED' && e.deliveries.some((d) => d.state === 'scheduled')
  return (
    <>
      {back}
      <PageHeader title={e.subject || '(no subject)'} description={<StatusBadge status={e.status} />} />
      <Card title="Details">
        <dl className="facts">
          <dt>From</dt>
          <dd className="wrap-anywhere">{e.from}</dd>
          <Addresses label="To" list={e.to} />
          <Addresses label="Cc" list={e.cc} />
          <Addresses label="Bcc" list={e.bcc} />
          <Addresses label="Reply-To" list={e.replyTo} />
          <dt>Created</dt>
          <dd>
            <Time value={e.createdAt} />
          </dd>
          {e.scheduledAt && (
            <>
              <dt>Scheduled for</dt>
              <dd>
                <Time value={e.scheduledAt} />
              </dd>
            </>
          )}
          <dt>Message-ID</dt>
          <dd className="wrap-anywhere">
            <code>{e.messageId}</code>
          </dd>
          <dt>Email id</dt>
          <dd className="wrap-anywhere">
            <code>{e.id}</code>
          </dd>
        </dl>
        <RawDownload email={e} />
      </Card>
      {mayChange && <ScheduledActions email={e} onChanged={changed} />}
      {sandbox && <MessageTabs email={e} />}
      <Card title="Timeline">
        <Timeline events={e.emailEvents} />
      </Card>
      <section className="email-section" aria-label="Deliveries">
        <Deliveries deliveries={e.deliveries} />
      </section>
      {!sandbox && <MessageTabs email={e} />}
    </>
  )
}
