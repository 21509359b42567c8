import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Switch } from 'react-aria-components'
import { Link, useParams } from 'wouter'
import { ApiError } from '../../api/api-errors.ts'
import { useApi } from '../../api/context.tsx'
import { contactApi, type Contact, type ContactPatch } from '../../api/contact.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { Badge } from '../../components/Badge.tsx'
import { Card } from '../../components/Card.tsx'
import { FormErrors } from '../../components/FormErrors.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { Empty, ErrorState, Loading } from '../../components/States.tsx'
import { Tabs } from '../../components/Tabs.tsx'
import { Time } from '../../components/Time.tsx'
import { toast } from '../../components/Toast.tsx'
import { ContactEmails } from './contact/ContactEmails.tsx'
import { ContactMemberships } from './contact/ContactMemberships.tsx'
import { ContactPrivacy } from './contact/ContactPrivacy.tsx'
import { ContactRuns } from './contact/ContactRuns.tsx'
import { ContactTimeline } from './contact/ContactTimeline.tsx'
import { DataEditor, DataView } from './contact/DataEditor.tsx'

/** The roles that may change contacts (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
const EDITORS = ['owner', 'admin', 'member']

const back = (
  <Link href="/contacts" className="back-link">
    ← All contacts
  </Link>
)

function Subscription({ contact, editable, save }: { contact: Contact; editable: boolean; save: (patch: ContactPatch) => Promise<Contact> }) {
  const change = useMutation({
    mutationFn: (subscribed: boolean) => save({ subscribed }),
    onSuccess: (saved) => toast({ title: saved.subscribed ? 'Subscribed' : 'Unsubscribed', tone: 'ok' }),
  })
  const subscribed = change.isPending ? change.variables : contact.subscribed
  return (
    <Card title="Subscription">
      {editable ? (
        <Switch className="switch" isSelected={subscribed} isDisabled={change.isPending} onChange={(value) => change.mutate(value)} aria-describedby="subscription-hint">
          <span className="switch-track" aria-hidden="true">
            <span className="switch-thumb" />
          </span>
          Subscribed to marketing mail
        </Switch>
      ) : (
        <p>{contact.subscribed ? 'Subscribed to marketing mail.' : 'Unsubscribed from marketing mail.'}</p>
      )}
      <p id="subscription-hint" className="field-hint">
        Campaigns and workflows send only to subscribed contacts; transactional mail is sent either way.
      </p>
      <FormErrors error={change.error} fields={[]} />
    </Card>
  )
}

/** One contact: its data (editable), subscription, timeline, emails, segments and books, workflow runs, and its privacy. */
export default function ContactPage() {
  const { id } = useParams<{ id: string }>()
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const queryKey = useProjectKey('contact', id)
  const contact = useQuery({ queryKey, queryFn: () => contactApi(api).get(id), retry: (count, error) => !(error instanceof ApiError && error.status === 404) && count < 2 })
  const save = async (patch: ContactPatch) => {
    const saved = await contactApi(api).update(id, patch)
    queries.setQueryData(queryKey, saved)
    // The edit is an event of its timeline; the table shows the contact too.
    queries.invalidateQueries({ queryKey: [...queryKey, 'events'] })
    queries.invalidateQueries({ queryKey: [...queryKey, 'memberships'] })
    queries.invalidateQueries({ queryKey: ['project', project.id, 'contacts'] })
    return saved
  }
  if (contact.error instanceof ApiError && contact.error.status === 404)
    return (
      <>
        {back}
        <PageHeader title="Contact not found" />
        <Empty title="There is no contact with this id in this project.">It may have been deleted or erased.</Empty>
      </>
    )
  if (contact.error)
    return (
      <>
        {back}
        <PageHeader title="Contact" />
        <ErrorState error={contact.error} retry={() => contact.refetch()} />
      </>
    )
  if (!contact.data) return <Loading label="Loading the contact" />
  const c = contact.data
  const editable = EDITORS.includes(project.role)
  return (
    <>
      {back}
      <PageHeader
        title={c.email}
        description={
          <span className="contact-meta">
            <Badge tone={c.subscribed ? 'ok' : 'neutral'}>{c.subscribed ? 'Subscribed' : 'Unsubscribed'}</Badge>
            <span>
              Created <Time value={c.createdAt} />
            </span>
            <span>
              Updated <Time value={c.updatedAt} />
            </span>
          </span>
        }
      />
      <div className="contact-top">
        {editable ? <DataEditor key={c.updatedAt} contact={c} save={save} /> : <DataView contact={c} />}
        <Subscription contact={c} editable={editable} save={save} />
      </div>
      <Tabs
        label="About this contact"
        className="contact-tabs"
        items={[
          { id: 'timeline', label: 'Timeline', content: <ContactTimeline id={c.id} /> },
          { id: 'emails', label: 'Emails', content: <ContactEmails id={c.id} /> },
          { id: 'memberships', label: 'Segments and books', content: <ContactMemberships id={c.id} /> },
          { id: 'runs', label: 'Workflow runs', content: <ContactRuns id={c.id} /> },
        ]}
      />
      <ContactPrivacy contact={c} />
    </>
  )
}
