import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useId, useState, type FormEvent } from 'react'
import { Button, Dialog, DialogTrigger, Form, Heading, Input, Label, Modal, ModalOverlay, TextField } from 'react-aria-components'
import { useLocation } from 'wouter'
import { useApi } from '../api/context.tsx'
import { projectApi, ROLES, SETTINGS_EDITORS, type Invitation, type Member, type ProjectSettings, type Role } from '../api/project.api.ts'
import { PROJECTS_KEY } from '../app/query-keys.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { useSession } from '../app/session.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { SecretOnce } from '../components/SecretOnce.tsx'
import { Empty, ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { settingsChange, SETTINGS_FIELDS } from '../lib/settings.ts'
import { SandboxPanel } from './Sandbox.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'
import { Card } from '../components/Card.tsx'

/*
 * What each role is offered here (src/core/accounts/roles.ts decides; this only hides what would
 * be refused): owners everything; admins the settings, not members, invitations or deleting the
 * project; members and viewers read the settings and the members.
 */
const ROLE_HINT: Record<Role, string> = {
  owner: 'everything',
  admin: 'everything but members and deleting the project',
  member: 'sending and content; no keys, domains, webhooks or settings',
  viewer: 'read only',
}

function SettingsForm({ settings }: { settings: ProjectSettings }) {
  const { api } = useApi()
  const queries = useQueryClient()
  const queryKey = useProjectKey('settings')
  const save = useMutation({
    mutationFn: projectApi(api).update,
    onSuccess: (saved) => {
      queries.setQueryData(queryKey, (old: ProjectSettings | undefined) => ({ ...old, ...saved }))
      // The switcher shows the name.
      return queries.invalidateQueries({ queryKey: PROJECTS_KEY })
    },
  })
  const once = useSubmitOnce()
  // The name follows a rename made elsewhere (the switcher's Rename) while this form is open.
  const [name, setName] = useState(settings.name)
  useEffect(() => setName(settings.name), [settings.name])
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => save.mutateAsync(settingsChange(new FormData(event.currentTarget))))
  }
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <FormErrors error={save.error} fields={SETTINGS_FIELDS} />
      <Field label="Project name" name="name" value={name} onChange={setName} isRequired error={fieldError(save.error, 'name')} />
      <Field
        label="Default sender"
        name="defaultSender"
        type="email"
        defaultValue={settings.defaultSender ?? ''}
        description="The From address of mail that names none. Leave it empty for none."
        error={fieldError(save.error, 'defaultSender')}
      />
      <Field
        label="Send rate (emails per second)"
        name="sendRatePerSecond"
        inputMode="numeric"
        defaultValue={settings.sendRatePerSecond === null ? '' : String(settings.sendRatePerSecond)}
        description="Leave it empty to send as fast as the server allows; a project may go slower than the server, never faster."
        error={fieldError(save.error, 'sendRatePerSecond')}
      />
      <div className="form-actions">
        <Button type="submit" className="button button-primary" isPending={save.isPending}>
          Save settings
        </Button>
        <span role="status" className="muted">
          {save.isSuccess ? 'Saved.' : ''}
        </span>
      </div>
    </Form>
  )
}

function SettingsFacts({ settings, role }: { settings: ProjectSettings; role: string }) {
  return (
    <>
      <dl className="facts">
        <dt>Project name</dt>
        <dd>{settings.name}</dd>
        <dt>Default sender</dt>
        <dd>{settings.defaultSender ?? <span className="muted">None</span>}</dd>
        <dt>Send rate</dt>
        <dd>{settings.sendRatePerSecond === null ? "The server's" : `${settings.sendRatePerSecond} emails per second`}</dd>
      </dl>
      <p className="muted panel-foot">Your role ({role}) can read the settings; an owner or admin changes them.</p>
    </>
  )
}

function ProjectPanel({ role }: { role: string }) {
  const { api } = useApi()
  const settings = useQuery({ queryKey: useProjectKey('settings'), queryFn: projectApi(api).get })
  return (
    <Card title="Project">
      {settings.error ? (
        <ErrorState error={settings.error} retry={() => settings.refetch()} />
      ) : !settings.data ? (
        <Loading label="Loading the settings" />
      ) : SETTINGS_EDITORS.includes(role) ? (
        <SettingsForm key={settings.data.id} settings={settings.data} />
      ) : (
        <SettingsFacts settings={settings.data} role={role} />
      )}
      {settings.data?.rateLimitPerMinute != null && <p className="field-hint panel-foot">The server’s operator limits this project’s API to {settings.data.rateLimitPerMinute} requests a minute.</p>}
    </Card>
  )
}

function RoleSelect({ member, onChanged }: { member: Member; onChanged: () => void }) {
  const { api } = useApi()
  const id = useId()
  const change = useMutation({ mutationFn: (role: Role) => projectApi(api).changeRole(member.accountId, role), onSuccess: onChanged })
  return (
    <div className="role-select">
      <label htmlFor={id} className="visually-hidden">
        Role of {member.email}
      </label>
      <select id={id} className="input input-compact" value={change.isPending ? change.variables : member.role} disabled={change.isPending} onChange={(event) => change.mutate(event.target.value as Role)} aria-invalid={change.error ? true : undefined} aria-describedby={change.error ? `${id}-error` : undefined}>
        {ROLES.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </select>
      {change.error && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {(change.error as Error).message}
        </span>
      )}
    </div>
  )
}

function RemoveMember({ member, onRemoved }: { member: Member; onRemoved: () => void }) {
  const { api } = useApi()
  const remove = useMutation({ mutationFn: () => projectApi(api).removeMember(member.accountId), onSuccess: onRemoved })
  return (
    <ConfirmDialog trigger="Remove" triggerLabel={`Remove ${member.email}`} title={`Remove ${member.email}?`} confirm="Remove member" onConfirm={() => remove.mutateAsync()} pending={remove.isPending} error={remove.error}>
      <p>They lose access to this project at once. Their account stays, with its other projects.</p>
    </ConfirmDialog>
  )
}

function Members({ isOwner }: { isOwner: boolean }) {
  const { api } = useApi()
  const session = useSession()
  const queries = useQueryClient()
  const queryKey = useProjectKey('members')
  const members = useQuery({ queryKey, queryFn: projectApi(api).members })
  const refresh = () => Promise.all([queries.invalidateQueries({ queryKey }), queries.invalidateQueries({ queryKey: PROJECTS_KEY })])
  const me = session.data?.account.id
  const columns: Column<Member>[] = [
    { header: 'Email', cell: (m) => (m.accountId === me ? <>{m.email} <span className="muted">(you)</span></> : m.email) },
    { header: 'Role', cell: (m) => (isOwner ? <RoleSelect member={m} onChanged={refresh} /> : m.role) },
    { header: 'Member since', cell: (m) => <Time value={m.createdAt} /> },
    ...(isOwner ? [{ header: 'Actions', align: 'end' as const, cell: (m: Member) => <RemoveMember member={m} onRemoved={refresh} /> }] : []),
  ]
  return (
    <Card title="Members">
      <p className="field-hint settings-roles">
        {ROLES.map((role) => (
          <span key={role}>
            <strong>{role}</strong>: {ROLE_HINT[role]}.{' '}
          </span>
        ))}
      </p>
      {members.error ? (
        <ErrorState error={members.error} retry={() => members.refetch()} />
      ) : !members.data ? (
        <Loading label="Loading the members" />
      ) : (
        <DataTable caption="Members" columns={columns} rows={members.data} rowKey={(m) => m.accountId} />
      )}
      {!isOwner && <p className="muted panel-foot">An owner of the project invites people and changes their roles.</p>}
    </Card>
  )
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const { api } = useApi()
  const [role, setRole] = useState<Role>('member')
  const invite = useMutation({ mutationFn: projectApi(api).invite, onSuccess: onInvited })
  const once = useSubmitOnce()
  const made = invite.data
  if (made) {
    return (
      <div className="panel panel-notice invite-made" role="region" aria-labelledby="new-invitation">
        <h3 id="new-invitation">Invitation for {made.email}</h3>
        {made.emailed.sent ? (
          <p role="status">
            <span className="badge badge-ok">Emailed</span> Invitation emailed to {made.email}. The link is below too: it is shown this once, works once, and ends <Time value={made.expiresAt} />.
          </p>
        ) : (
          <p role="alert">
            <span className="badge badge-warn">Not emailed</span> Could not email it: {(made.emailed.error ?? 'the receiving server did not take it').replace(/\.$/, '')}. Copy the link and send it yourself: it is shown this once, works once, and ends <Time value={made.expiresAt} />.
          </p>
        )}
        <SecretOnce label="Invitation link" value={made.link} />
        <Button className="button" onPress={() => invite.reset()}>
          Done
        </Button>
      </div>
    )
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => invite.mutateAsync({ email: String(new FormData(event.currentTarget).get('email')).trim(), role }))
  }
  return (
    <Form onSubmit={submit} className="form invite-form" validationBehavior="aria">
      <FormErrors error={invite.error} fields={['email', 'role']} />
      <div className="form-row">
        <Field label="Email address" name="email" type="email" isRequired error={fieldError(invite.error, 'email')} className="grow" />
        <div className="field">
          <label htmlFor="invite-role" className="field-label">
            Role
          </label>
          <select id="invite-role" className="input" value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
          {fieldError(invite.error, 'role') && <span className="field-error">{fieldError(invite.error, 'role')}</span>}
        </div>
      </div>
      <p className="field-hint">{`${role[0]!.toUpperCase()}${role.slice(1)}: ${ROLE_HINT[role]}.`}</p>
      <Button type="submit" className="button button-primary" isPending={invite.isPending}>
        Create invitation
      </Button>
    </Form>
  )
}

function RevokeInvitation({ invitation, onRevoked }: { invitation: Invitation; onRevoked: () => void }) {
  const { api } = useApi()
  const revoke = useMutation({ mutationFn: () => projectApi(api).revokeInvitation(invitation.id), onSuccess: onRevoked })
  return (
    <ConfirmDialog trigger="Revoke" triggerLabel={`Revoke the invitation for ${invitation.email}`} title={`Revoke the invitation for ${invitation.email}?`} confirm="Revoke invitation" onConfirm={() => revoke.mutateAsync()} pending={revoke.isPending} error={revoke.error}>
      <p>Its link stops working. You can invite them again later.</p>
    </ConfirmDialog>
  )
}

function Invitations() {
  const { api } = useApi()
  const queries = useQueryClient()
  const queryKey = useProjectKey('invitations')
  const invitations = useQuery({ queryKey, queryFn: projectApi(api).invitations })
  const refresh = () => queries.invalidateQueries({ queryKey })
  const columns: Column<Invitation>[] = [
    { header: 'Email', cell: (i) => i.email },
    { header: 'Role', cell: (i) => i.role },
    { header: 'Expires', cell: (i) => <Time value={i.expiresAt} /> },
    { header: 'Actions', align: 'end', cell: (i) => <RevokeInvitation invitation={i} onRevoked={refresh} /> },
  ]
  return (
    <Card title="Invitations">
      <InviteForm onInvited={refresh} />
      <div className="settings-gap" />
      {invitations.error ? (
        <ErrorState error={invitations.error} retry={() => invitations.refetch()} />
      ) : !invitations.data ? (
        <Loading label="Loading the invitations" />
      ) : invitations.data.length === 0 ? (
        <Empty title="No invitation is waiting." />
      ) : (
        <DataTable caption="Pending invitations" columns={columns} rows={invitations.data} rowKey={(i) => i.id} />
      )}
    </Card>
  )
}

function DeleteProject({ name }: { name: string }) {
  const { api } = useApi()
  const queries = useQueryClient()
  const [, navigate] = useLocation()
  const [typed, setTyped] = useState('')
  const remove = useMutation({
    mutationFn: projectApi(api).remove,
    onSuccess: async () => {
      localStorage.removeItem('mailstead.project')
      queries.removeQueries({ queryKey: ['project'] })
      await queries.invalidateQueries({ queryKey: PROJECTS_KEY })
      navigate('/', { replace: true })
    },
  })
  return (
    <section className="panel panel-danger" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete this project</h2>
      <p>Its keys, domains, contacts, mail, campaigns, workflows, webhooks and members go with it, and mail still waiting is not sent. This cannot be undone.</p>
      <DialogTrigger onOpenChange={() => setTyped('')}>
        <Button className="button button-danger">Delete project…</Button>
        <ModalOverlay className="modal-overlay" isDismissable>
          <Modal className="modal">
            <Dialog className="dialog" role="alertdialog">
              {({ close }) => (
                <form
                  onSubmit={(event) => {
                    event.preventDefault()
                    if (typed === name) remove.mutate()
                  }}
                >
                  <Heading slot="title">Delete {name}?</Heading>
                  <p>Everything in it is deleted for good.</p>
                  <TextField value={typed} onChange={setTyped} className="field" autoFocus>
                    <Label className="field-label">Type the project’s name to confirm</Label>
                    <Input className="input" autoComplete="off" />
                  </TextField>
                  <FormErrors error={remove.error} fields={[]} />
                  <div className="dialog-actions">
                    <Button className="button" onPress={close}>
                      Cancel
                    </Button>
                    <Button type="submit" className="button button-danger button-solid" isDisabled={typed !== name} isPending={remove.isPending}>
                      Delete project
                    </Button>
                  </div>
                </form>
              )}
            </Dialog>
          </Modal>
        </ModalOverlay>
      </DialogTrigger>
    </section>
  )
}

/** The project's name, default sender and send rate; its members and invitations; deleting it. */
export default function Settings() {
  const { project } = useProject()
  const isOwner = project.role === 'owner'
  return (
    <>
      <PageHeader title="Settings" description="This project’s name, default sender and send rate, and who may use it." />
      <ProjectPanel role={project.role} />
      <SandboxPanel mayChange={SETTINGS_EDITORS.includes(project.role)} />
      <Members isOwner={isOwner} />
      {isOwner && <Invitations />}
      {isOwner && <DeleteProject name={project.name} />}
    </>
  )
}
