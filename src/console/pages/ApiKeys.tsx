import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form, Label, Radio, RadioGroup, Text } from 'react-aria-components'
import { useApi } from '../api/context.tsx'
import { keysApi, type ApiKey, type KeyScope, type KeyType } from '../api/keys.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { Field } from '../components/Field.tsx'
import { FormErrors, fieldError } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { SecretOnce } from '../components/SecretOnce.tsx'
import { Empty, ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'
import { toast } from '../components/Toast.tsx'
import { Card } from '../components/Card.tsx'

const TYPE_NAMES: Record<KeyType, string> = { secret: 'Secret key', public: 'Public key' }

/** What each scope lets a secret key do, in the words the list and the form use. */
const SCOPES: { value: KeyScope; label: string; hint: string }[] = [
  { value: 'full', label: 'Full access', hint: 'Everything the API and the SMTP relay offer.' },
  { value: 'sending', label: 'Sending only', hint: 'Send email over HTTP and the SMTP relay; nothing else can be read or changed.' },
  { value: 'read', label: 'Read only', hint: 'GET requests only: reports and dashboards. It cannot send.' },
]
const SCOPE_NAMES = Object.fromEntries(SCOPES.map((scope) => [scope.value, scope.label])) as Record<KeyScope, string>

/** How long a new key works: its expiry in days from now, or none. */
const EXPIRIES = [
  { value: 'never', label: 'Never', days: null },
  { value: '30', label: 'In 30 days', days: 30 },
  { value: '90', label: 'In 90 days', days: 90 },
  { value: '365', label: 'In a year', days: 365 },
] as const

const expiryAt = (choice: string, now = Date.now()) => {
  const days = EXPIRIES.find((expiry) => expiry.value === choice)?.days
  return days ? new Date(now + days * 86_400_000).toISOString() : undefined
}

/** The roles that may create and revoke keys (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
const MANAGERS = ['owner', 'admin']

function CreateKey({ onCreated }: { onCreated: () => void }) {
  const once = useSubmitOnce()
  const { api } = useApi()
  const [type, setType] = useState<KeyType>('secret')
  const [name, setName] = useState('')
  const [scope, setScope] = useState<KeyScope>('full')
  const [expiry, setExpiry] = useState('never')
  const create = useMutation({ mutationFn: keysApi(api).create, onSuccess: onCreated })
  const made = create.data
  if (made) {
    return (
      <section className="panel panel-notice" aria-labelledby="new-key">
        <h2 id="new-key">New {TYPE_NAMES[made.type].toLowerCase()}</h2>
        <p>Copy it now: it is shown this once. Only its first characters are kept for the list.</p>
        <SecretOnce label={TYPE_NAMES[made.type]} value={made.key} />
        <Button className="button" onPress={() => create.reset()}>
          Done
        </Button>
      </section>
    )
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => create.mutateAsync({ name: name.trim(), type, ...(type === 'secret' && { scope, expiresAt: expiryAt(expiry) }) }))
  }
  return (
    <Card title="Create a key">
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={create.error} fields={['name', 'type', 'scope', 'expiresAt']} />
        <Field
          label="Name"
          name="name"
          value={name}
          onChange={setName}
          isRequired
          maxLength={100}
          placeholder="Production web server"
          description="Says where the key is used, so you know what stops working if you revoke it."
          error={fieldError(create.error, 'name')}
        />
        <RadioGroup value={type} onChange={(value) => setType(value as KeyType)} className="radio-group">
          <Label className="field-label">Type</Label>
          <Radio value="secret" className="radio">
            <span>
              Secret key (<code>sk_…</code>)
              <Text slot="description" className="field-hint">
                For your servers: sending, contacts and everything else, over HTTP and the SMTP relay. Keep it secret.
              </Text>
            </span>
          </Radio>
          <Radio value="public" className="radio">
            <span>
              Public key (<code>pk_…</code>)
              <Text slot="description" className="field-hint">
                For web pages: it can only track events (<code>POST /v1/track</code>).
              </Text>
            </span>
          </Radio>
        </RadioGroup>
        {type === 'secret' && (
          <>
            <RadioGroup value={scope} onChange={(value) => setScope(value as KeyScope)} className="radio-group">
              <Label className="field-label">Access</Label>
              {SCOPES.map((choice) => (
                <Radio key={choice.value} value={choice.value} className="radio">
                  <span>
                    {choice.label}
                    <Text slot="description" className="field-hint">
                      {choice.hint}
                    </Text>
                  </span>
                </Radio>
              ))}
            </RadioGroup>
            <RadioGroup value={expiry} onChange={setExpiry} orientation="horizontal" className="radio-group radio-group-inline">
              <Label className="field-label">Expires</Label>
              {EXPIRIES.map((choice) => (
                <Radio key={choice.value} value={choice.value} className="radio">
                  {choice.label}
                </Radio>
              ))}
            </RadioGroup>
          </>
        )}
        <Button type="submit" className="button button-primary" isPending={create.isPending}>
          Create key
        </Button>
      </Form>
    </Card>
  )
}

function RevokeKey({ apiKey, onRevoked }: { apiKey: ApiKey; onRevoked: () => void }) {
  const { api } = useApi()
  const revoke = useMutation({
    mutationFn: () => keysApi(api).revoke(apiKey.id),
    onSuccess: () => {
      toast({ title: 'Key revoked', description: `${apiKey.key} no longer works.`, tone: 'ok' })
      return onRevoked()
    },
  })
  return (
    <ConfirmDialog
      trigger="Revoke"
      triggerLabel={`Revoke ${apiKey.key}`}
      title={`Revoke ${apiKey.key}?`}
      confirm="Revoke key"
      onConfirm={() => revoke.mutateAsync()}
      pending={revoke.isPending}
      error={revoke.error}
    >
      <p>Applications that use this key get 401 from their next request, over HTTP and SMTP. This cannot be undone.</p>
    </ConfirmDialog>
  )
}

/** The project's keys: create one (shown once, with a copy button), list them by their first characters, revoke one. */
export default function ApiKeys() {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const queryKey = useProjectKey('keys')
  const keys = useQuery({ queryKey, queryFn: keysApi(api).list })
  const refresh = () => queries.invalidateQueries({ queryKey })
  const mayManage = MANAGERS.includes(project.role)
  const columns: Column<ApiKey>[] = [
    { header: 'Name', cell: (k) => k.name },
    { header: 'Key', cell: (k) => <code>{k.key}</code> },
    { header: 'Access', cell: (k) => (k.type === 'public' ? 'Track events only' : SCOPE_NAMES[k.scope]) },
    { header: 'Last used', cell: (k) => (k.lastUsedAt ? <Time value={k.lastUsedAt} /> : <span className="muted">Never</span>) },
    { header: 'Expires', cell: (k) => (k.expiresAt ? <Time value={k.expiresAt} /> : <span className="muted">Never</span>) },
    { header: 'Created', cell: (k) => <Time value={k.createdAt} /> },
    {
      header: 'Status',
      cell: (k) =>
        k.revokedAt ? (
          <span className="badge badge-off">
            Revoked <Time value={k.revokedAt} />
          </span>
        ) : (
          <span className="badge badge-ok">Active</span>
        ),
    },
    ...(mayManage ? [{ header: 'Actions', align: 'end' as const, cell: (k: ApiKey) => (k.revokedAt ? null : <RevokeKey apiKey={k} onRevoked={refresh} />) }] : []),
  ]
  return (
    <>
      <PageHeader title="API keys" description="Applications authenticate with a key: Authorization: Bearer sk_… over HTTP, or as the SMTP relay’s password." />
      {mayManage ? <CreateKey onCreated={refresh} /> : <p className="muted">Your role ({project.role}) can see the keys; an owner or admin creates and revokes them.</p>}
      {keys.error ? (
        <ErrorState error={keys.error} retry={() => keys.refetch()} />
      ) : !keys.data ? (
        <Loading label="Loading the keys" />
      ) : keys.data.length === 0 ? (
        <Empty title="This project has no keys yet." />
      ) : (
        <DataTable caption="Keys" columns={columns} rows={keys.data} rowKey={(k) => String(k.id)} />
      )}
    </>
  )
}
