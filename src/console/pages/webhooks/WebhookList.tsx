import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { webhooksApi, type Webhook } from '../../api/webhooks.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { Field } from '../../components/Field.tsx'
import { fieldError, FormErrors } from '../../components/FormErrors.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { PagedTable } from '../../components/PagedTable.tsx'
import { SecretOnce } from '../../components/SecretOnce.tsx'
import { Empty } from '../../components/States.tsx'
import type { Column } from '../../components/Table.tsx'
import { Time } from '../../components/Time.tsx'
import { chosenEvents, eventsSummary, mayManageWebhooks } from '../../lib/webhooks-view.ts'
import { EventPicker } from './EventPicker.tsx'
import { StatusBadge } from './StatusBadge.tsx'
import { useSubmitOnce } from '../../components/SubmitButton.tsx'
import { Card } from '../../components/Card.tsx'

function AddWebhook({ onAdded, onClose }: { onAdded: () => void; onClose: () => void }) {
  const once = useSubmitOnce()
  const { api } = useApi()
  const [events, setEvents] = useState<string[]>([])
  const add = useMutation({ mutationFn: webhooksApi(api).create, onSuccess: onAdded })
  const made = add.data
  if (made) {
    return (
      <section className="panel panel-notice" aria-labelledby="new-webhook">
        <h2 id="new-webhook">Webhook added</h2>
        <p>
          Calls to <code>{made.url}</code> are signed with this secret. Copy it now: it is shown this once. Your endpoint checks the <code>x-mailstead-signature</code> header
          with it.
        </p>
        <SecretOnce label="Signing secret" value={made.secret} />
        <div className="hooks-actions">
          <Link href={`/webhooks/${made.id}`} className="button">
            Open its delivery log
          </Link>
          <Button className="button" onPress={onClose}>
            Done
          </Button>
        </div>
      </section>
    )
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const url = String(new FormData(form).get('url') ?? '').trim()
    once(() => add.mutateAsync({ url, events: chosenEvents(events) }, { onSuccess: () => setEvents([]) }))
  }
  return (
    <Card title="Add an endpoint">
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={add.error} fields={['url', 'events']} />
        <Field label="Endpoint URL" name="url" type="url" isRequired placeholder="https://example.com/hooks/mailstead" description="http or https; Mailstead POSTs each event here." error={fieldError(add.error, 'url')} />
        <EventPicker value={events} onChange={setEvents} error={fieldError(add.error, 'events')} />
        <div className="hooks-actions">
          <Button type="submit" className="button button-primary" isPending={add.isPending}>
            Add endpoint
          </Button>
          <Button className="button" onPress={onClose}>
            Cancel
          </Button>
        </div>
      </Form>
    </Card>
  )
}

/** The project's webhook endpoints: add one (its secret shown once), and each listed with a link to its log. */
export function WebhookList() {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const queryKey = useProjectKey('webhooks')
  const mayManage = mayManageWebhooks(project.role)
  const [adding, setAdding] = useState(false)
  const columns: Column<Webhook>[] = [
    {
      header: 'Endpoint',
      cell: (w) => (
        <Link href={`/webhooks/${w.id}`} className="hooks-url" aria-label={`Endpoint ${w.url}`}>
          {w.url}
        </Link>
      ),
    },
    { header: 'Events', cell: (w) => <span title={w.events.join(', ')}>{eventsSummary(w.events)}</span> },
    { header: 'Status', cell: (w) => <StatusBadge webhook={w} /> },
    { header: 'Added', cell: (w) => <Time value={w.createdAt} /> },
  ]
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints of yours that Mailstead tells of events (sent, delivered, bounced, opened, a contact unsubscribed…) with a signed POST, retried when they fail."
        actions={
          mayManage &&
          !adding && (
            <Button className="button button-primary" onPress={() => setAdding(true)}>
              Add an endpoint
            </Button>
          )
        }
      />
      {mayManage ? (
        adding && <AddWebhook onAdded={() => queries.invalidateQueries({ queryKey })} onClose={() => setAdding(false)} />
      ) : (
        <p className="muted">Your role ({project.role}) can see the webhooks and their deliveries; an owner or admin adds and changes them.</p>
      )}
      <PagedTable
        caption="Endpoints"
        queryKey={queryKey}
        fetchPage={webhooksApi(api).page}
        columns={columns}
        rowKey={(w) => w.id}
        empty={<Empty title="No webhook yet.">{mayManage && <p>Add an endpoint, and it is told of the events you choose.</p>}</Empty>}
      />
    </>
  )
}
