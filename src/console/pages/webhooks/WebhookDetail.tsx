import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form, Label, Radio, RadioGroup } from 'react-aria-components'
import { Link, useLocation } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { webhooksApi, type Webhook } from '../../api/webhooks.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx'
import { Field } from '../../components/Field.tsx'
import { fieldError, FormErrors } from '../../components/FormErrors.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { SecretOnce } from '../../components/SecretOnce.tsx'
import { ErrorState, Loading } from '../../components/States.tsx'
import { Time } from '../../components/Time.tsx'
import { ALL_EVENTS, chosenEvents, mayManageWebhooks } from '../../lib/webhooks-view.ts'
import { DeliveryLog } from './DeliveryLog.tsx'
import { EventPicker } from './EventPicker.tsx'
import { StatusBadge } from './StatusBadge.tsx'
import { TestEvent } from './TestEvent.tsx'
import { useSubmitOnce } from '../../components/SubmitButton.tsx'
import { Card } from '../../components/Card.tsx'

function Facts({ webhook }: { webhook: Webhook }) {
  return (
    <section className="panel" aria-label="Endpoint">
    <dl className="facts">
      <dt>URL</dt>
      <dd>
        <code className="hooks-url">{webhook.url}</code>
      </dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge webhook={webhook} />
      </dd>
      <dt>Events</dt>
      <dd>
        {webhook.events.includes(ALL_EVENTS) ? (
          'All events, those added later too'
        ) : (
          <ul className="plain-list hooks-events">
            {webhook.events.map((type) => (
              <li key={type}>
                <code>{type}</code>
              </li>
            ))}
          </ul>
        )}
      </dd>
      <dt>Added</dt>
      <dd>
        <Time value={webhook.createdAt} />
      </dd>
      <dt>Changed</dt>
      <dd>
        <Time value={webhook.updatedAt} />
      </dd>
    </dl>
    </section>
  )
}

function EditWebhook({ webhook, onSaved, onClose }: { webhook: Webhook; onSaved: (webhook: Webhook) => void; onClose: () => void }) {
  const { api } = useApi()
  const [events, setEvents] = useState(webhook.events)
  const save = useMutation({ mutationFn: (patch: { url: string; events: string[] }) => webhooksApi(api).update(webhook.id, patch), onSuccess: onSaved })
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const url = String(new FormData(event.currentTarget).get('url') ?? '').trim()
    once(() => save.mutateAsync({ url, events: chosenEvents(events) }))
  }
  return (
    <Card title="Change the endpoint">
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={save.error} fields={['url', 'events']} />
        <Field label="Endpoint URL" name="url" type="url" isRequired defaultValue={webhook.url} error={fieldError(save.error, 'url')} />
        <EventPicker value={events} onChange={setEvents} error={fieldError(save.error, 'events')} />
        <div className="hooks-actions">
          <Button type="submit" className="button button-primary" isPending={save.isPending}>
            Save changes
          </Button>
          <Button className="button" onPress={onClose}>
            Cancel
          </Button>
        </div>
      </Form>
    </Card>
  )
}

function Switch({ webhook, onChanged }: { webhook: Webhook; onChanged: (webhook: Webhook) => void }) {
  const { api } = useApi()
  const toggle = useMutation({ mutationFn: () => webhooksApi(api).update(webhook.id, { enabled: !webhook.enabled }), onSuccess: onChanged })
  return (
    <>
      <Button className="button button-small" isPending={toggle.isPending} onPress={() => toggle.mutate()}>
        {webhook.enabled ? 'Disable' : 'Enable'}
      </Button>
      {toggle.error ? (
        <p className="field-error" role="alert">
          {(toggle.error as Error).message}
        </p>
      ) : null}
    </>
  )
}

function RotateSecret({ webhook, onRotated }: { webhook: Webhook; onRotated: (secret: { secret: string; previousSecretExpiresAt: string | null }) => void }) {
  const { api } = useApi()
  const [overlap, setOverlap] = useState('24')
  const rotate = useMutation({ mutationFn: () => webhooksApi(api).rotateSecret(webhook.id, Number(overlap)), onSuccess: onRotated })
  return (
    <ConfirmDialog trigger="Rotate secret" title="Rotate the signing secret?" confirm="Rotate secret" onConfirm={() => rotate.mutateAsync()} pending={rotate.isPending} error={rotate.error}>
      <p>A new secret signs the calls from now on; it is shown once. Give it to your endpoint.</p>
      <RadioGroup value={overlap} onChange={setOverlap} className="radio-group">
        <Label className="field-label">The old secret</Label>
        <Radio value="24" className="radio">
          Signs too for 24 hours, so the endpoint can switch without refusing a call
        </Radio>
        <Radio value="0" className="radio">
          Stops signing now
        </Radio>
      </RadioGroup>
    </ConfirmDialog>
  )
}

function DeleteWebhook({ webhook, onDeleted }: { webhook: Webhook; onDeleted: () => void }) {
  const { api } = useApi()
  const remove = useMutation({ mutationFn: () => webhooksApi(api).remove(webhook.id), onSuccess: onDeleted })
  return (
    <ConfirmDialog trigger="Delete" triggerLabel="Delete webhook" title="Delete this webhook?" confirm="Delete webhook" onConfirm={() => remove.mutateAsync()} pending={remove.isPending} error={remove.error}>
      <p className="hooks-url">
        <code>{webhook.url}</code> is told of nothing more, and its delivery log is deleted with it. This cannot be undone.
      </p>
    </ConfirmDialog>
  )
}

/** One endpoint: what it is and takes, its controls for owners and admins, and its delivery log. */
export function WebhookDetail({ id }: { id: string }) {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const [, navigate] = useLocation()
  const listKey = useProjectKey('webhooks')
  const key = [...listKey, id]
  const webhook = useQuery({ queryKey: key, queryFn: () => webhooksApi(api).get(id) })
  const [editing, setEditing] = useState(false)
  const [saved, setSaved] = useState(false)
  const [rotated, setRotated] = useState<{ secret: string; previousSecretExpiresAt: string | null }>()
  const mayManage = mayManageWebhooks(project.role)
  /** Shows the webhook as the API answered a change at once, then reads it and the list again. */
  const refresh = (changed: Webhook) => {
    queries.setQueryData(key, changed)
    return queries.invalidateQueries({ queryKey: listKey })
  }
  const back = (
    <p className="hooks-back">
      <Link href="/webhooks">← All webhooks</Link>
    </p>
  )
  if (webhook.error) {
    return (
      <>
        {back}
        <PageHeader title="Webhook" />
        <ErrorState error={webhook.error} retry={() => webhook.refetch()} />
      </>
    )
  }
  if (!webhook.data) {
    return (
      <>
        {back}
        <PageHeader title="Webhook" />
        <Loading label="Loading the webhook" />
      </>
    )
  }
  const hook = webhook.data
  const deleted = () => {
    queries.removeQueries({ queryKey: key })
    queries.invalidateQueries({ queryKey: listKey })
    navigate('/webhooks')
  }
  return (
    <>
      {back}
      <PageHeader
        title="Webhook"
        description={<span className="hooks-url">{hook.url}</span>}
        actions={
          mayManage && (
            <>
              {!editing && (
                <Button
                  className="button button-small"
                  onPress={() => {
                    setSaved(false)
                    setEditing(true)
                  }}
                >
                  Edit
                </Button>
              )}
              <Switch webhook={hook} onChanged={refresh} />
              <RotateSecret webhook={hook} onRotated={setRotated} />
              <DeleteWebhook webhook={hook} onDeleted={deleted} />
            </>
          )
        }
      />
      {rotated && (
        <section className="panel panel-notice" aria-labelledby="new-secret">
          <h2 id="new-secret">New signing secret</h2>
          <p>
            Copy it now: it is shown this once.{' '}
            {rotated.previousSecretExpiresAt ? (
              <>
                The old secret signs too until <Time value={rotated.previousSecretExpiresAt} />.
              </>
            ) : (
              'The old secret signs nothing more.'
            )}
          </p>
          <SecretOnce label="Signing secret" value={rotated.secret} />
          <Button className="button" onPress={() => setRotated(undefined)}>
            Done
          </Button>
        </section>
      )}
      {!hook.enabled && (
        <p className="panel panel-notice" role="status">
          {hook.disabledReason ?? 'Disabled: its events wait and are sent once it is enabled again.'}
        </p>
      )}
      <Facts webhook={hook} />
      {mayManage && editing && (
        <EditWebhook
          webhook={hook}
          onClose={() => setEditing(false)}
          onSaved={(changed) => {
            refresh(changed)
            setEditing(false)
            setSaved(true)
          }}
        />
      )}
      <p role="status" className={saved ? 'panel panel-notice' : 'visually-hidden'}>
        {saved ? 'Changes saved.' : ''}
      </p>
      {mayManage && <TestEvent webhook={hook} />}
      <DeliveryLog webhook={hook} queryKey={[...key, 'deliveries']} mayManage={mayManage} onReplayed={() => queries.invalidateQueries({ queryKey: [...key, 'deliveries'] })} />
    </>
  )
}
