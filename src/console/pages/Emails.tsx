import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link, useLocation, useParams, useSearch } from 'wouter'
import { useApi } from '../api/context.tsx'
import { emailsApi, type EmailSummary } from '../api/emails.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { StatusBadge, Truncated } from '../components/EmailStatus.tsx'
import { Field } from '../components/Field.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { PagedTable } from '../components/PagedTable.tsx'
import { Empty } from '../components/States.tsx'
import type { Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { EmailPage } from './Email.tsx'
import { maySend, SendTestEmail } from './email/SendTestEmail.tsx'
import { pollEvery } from '../lib/event-words.ts'
import { senderName } from '../lib/message-headers.ts'
import { EMAIL_STATUSES, filterProblems, filtersFromForm, filtersFromSearch, hasFilters, searchOf, statusName, type EmailFilters } from '../lib/email-filters.ts'

/** A native select with its visible label (every browser and screen reader knows it). */
function Select({ label, name, value, options }: { label: string; name: string; value: string | undefined; options: { value: string; label: string }[] }) {
  const id = `filter-${name}`
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <select id={id} name={name} className="input" defaultValue={value ?? ''}>
        <option value="">Any</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  )
}

function DayField({ label, name, value, error }: { label: string; name: string; value: string | undefined; error?: string }) {
  const id = `filter-${name}`
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <input id={id} name={name} type="date" className="input" defaultValue={value ?? ''} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      {error && (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
    </div>
  )
}

/**
 * The filters, from and to the address's query string: applying one is a new address, so Back and
 * reload keep it. They are folded behind one Filters button (with the number on) above the list,
 * open while a filter is on: the emails come first, as in a mail client, not below seven fields.
 */
function Filters({ filters, onApply }: { filters: EmailFilters; onApply: (filters: EmailFilters) => void }) {
  const { api } = useApi()
  const domains = useQuery({ queryKey: useProjectKey('domains', 'names'), queryFn: emailsApi(api).domains })
  const [problems, setProblems] = useState<ReturnType<typeof filterProblems>>({})
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const chosen = filtersFromForm(new FormData(event.currentTarget))
    const found = filterProblems(chosen)
    setProblems(found)
    if (Object.keys(found).length === 0) onApply(chosen)
  }
  const domainOptions = (domains.data ?? []).map((d) => ({ value: String(d.id), label: d.name }))
  // A domain named by the address but not (yet) listed stays choosable, by its id.
  if (filters.domainId && !domainOptions.some((d) => d.value === filters.domainId)) domainOptions.push({ value: filters.domainId, label: `Domain ${filters.domainId}` })
  const form = (
    <Form onSubmit={submit} className="form email-filters" validationBehavior="aria">
      <Select label="Status" name="status" value={filters.status} options={EMAIL_STATUSES.map((s) => ({ value: s, label: statusName(s) }))} />
      <Field label="Recipient" name="recipient" defaultValue={filters.recipient} maxLength={254} description="Part of a To, Cc or Bcc address" />
      <Field label="Sender" name="sender" defaultValue={filters.sender} maxLength={254} description="Part of the From" />
      <Field label="Subject" name="subject" defaultValue={filters.subject} maxLength={254} description="Part of the subject" />
      <Select label="Sending domain" name="domainId" value={filters.domainId} options={domainOptions} />
      <DayField label="Sent from (day)" name="from" value={filters.from} />
      <DayField label="Sent until (day)" name="to" value={filters.to} error={problems.to} />
      <div className="filter-actions">
        <Button type="submit" className="button button-primary">
          Apply filters
        </Button>
        {hasFilters(filters) && (
          <Button className="button" onPress={() => onApply({})}>
            Clear filters
          </Button>
        )}
      </div>
    </Form>
  )
  const on = Object.values(filters).filter(Boolean).length
  return (
    <details className="filters-fold" open={hasFilters(filters)}>
      <summary className="button button-small">
        <span>Filters</span>
        {on > 0 && (
          <span className="filter-count" aria-label={`${on} on`}>
            {on}
          </span>
        )}
      </summary>
      {form}
    </details>
  )
}

const joined = (addresses: string[]) => addresses.join(', ')

const subjectLink = (e: EmailSummary) => (
  <Link href={`/emails/${encodeURIComponent(e.id)}`} className="truncate" title={e.subject || '(no subject)'}>
    {e.subject || '(no subject)'}
  </Link>
)

const LOG_COLUMNS: Column<EmailSummary>[] = [
  { header: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
  { header: 'Subject', cell: subjectLink },
  { header: 'To', cell: (e) => <Truncated text={joined([...e.to, ...e.cc, ...e.bcc])} /> },
  { header: 'From', cell: (e) => <Truncated text={e.from} />, priority: 'low' },
  { header: 'Created', cell: (e) => <Time value={e.createdAt} /> },
]

/** A sandbox project's mail read as an inbox: who wrote, what about, to whom, when, and what the simulator made of it. */
const INBOX_COLUMNS: Column<EmailSummary>[] = [
  {
    header: 'From',
    cell: (e) => (
      <span className="truncate sender" title={e.from}>
        {senderName(e.from)}
      </span>
    ),
  },
  { header: 'Subject', cell: subjectLink },
  { header: 'To', cell: (e) => <Truncated text={joined([...e.to, ...e.cc, ...e.bcc])} /> },
  { header: 'Received', cell: (e) => <Time value={e.createdAt} /> },
  { header: 'Outcome', cell: (e) => <StatusBadge status={e.status} /> },
]

const LOG_WORDS = {
  title: 'Emails',
  description: 'Every email the project sent or is sending, newest first. Open one for its events, each recipient’s delivery and its content.',
  empty: 'No email has been sent yet.',
  emptyHint: 'Send one with',
}

const INBOX_WORDS = {
  title: 'Inbox',
  description:
    'A sandbox project: its mail never leaves the server. Each message is built, signed and kept here, newest first; open one to read it, its headers and the checks a receiver would run. The recipient’s local part picks the outcome: bounce…, complaint…, defer…, suppressed…, anything else is delivered.',
  empty: 'The inbox is empty.',
  // A sandbox needs no domain: say so where its first email is asked for.
  emptyHint: 'Send one from any address (no domain needed) with',
}

/** The project's emails, newest first, paged on the server, under filters kept in the address. */
function EmailLog() {
  const { api } = useApi()
  const search = useSearch()
  const [, navigate] = useLocation()
  const filters = filtersFromSearch(search)
  const query = searchOf(filters)
  const queryKey = useProjectKey('emails', query)
  const apply = (chosen: EmailFilters) => {
    const next = searchOf(chosen)
    navigate(next ? `/emails?${next}` : '/emails')
  }
  const { sandbox, role } = useProject().project
  const columns = sandbox ? INBOX_COLUMNS : LOG_COLUMNS
  const words = sandbox ? INBOX_WORDS : LOG_WORDS
  return (
    <>
      <PageHeader title={words.title} description={words.description} actions={<SendTestEmail />} />
      {/* Keyed by the address: Back or a link to other filters shows them in the form too. */}
      <Filters key={`filters ${query}`} filters={filters} onApply={apply} />
      <div className={sandbox ? 'email-log inbox' : 'email-log'}>
        <PagedTable
          key={`list ${query}`}
          caption={hasFilters(filters) ? `${words.title} matching the filters` : words.title}
          queryKey={queryKey}
          fetchPage={emailsApi(api).page(filters)}
          columns={columns}
          rowKey={(e) => e.id}
          pageSize={25}
          // Read again while an email shown is on its way or waits: statuses move with no reload.
          refreshEvery={(emails) => pollEvery(emails.map((e) => e.status))}
          empty={
            hasFilters(filters) ? (
              <Empty title="No email matches these filters.">
                <p>Try fewer filters, or a wider range of days.</p>
              </Empty>
            ) : (
              <Empty title={words.empty}>
                <p>
                  {words.emptyHint} <code>POST /api/v1/emails</code> and a secret key, or through the SMTP relay.
                </p>
                {maySend(role) && <p>Or try one now with Send test email, above.</p>}
              </Empty>
            )
          }
        />
      </div>
    </>
  )
}

/** /emails: the log with its filters; /emails/ID: that email. */
export default function Emails() {
  const rest = useParams<{ '*'?: string }>()['*'] ?? ''
  return rest === '' ? <EmailLog /> : <EmailPage id={decodeURIComponent(rest)} />
}
