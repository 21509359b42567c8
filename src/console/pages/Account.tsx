import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { accountApi, type AccountSession } from '../api/account.ts'
import { useApi } from '../api/context.tsx'
import { SESSION_KEY } from '../app/keys.ts'
import { useSession } from '../app/session.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { CopyButton } from '../components/CopyButton.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { browserName, groupedSecret } from '../lib/account.ts'

const SESSIONS_KEY = ['account', 'sessions']

function RevokeSession({ session, onRevoked }: { session: AccountSession; onRevoked: () => void }) {
  const { api } = useApi()
  const revoke = useMutation({ mutationFn: () => accountApi(api).revokeSession(session.id), onSuccess: onRevoked })
  const name = `${browserName(session.userAgent)}${session.address ? ` from ${session.address}` : ''}`
  return (
    <ConfirmDialog trigger="Revoke" triggerLabel={`Revoke the session of ${name}`} title={`Sign out ${name}?`} confirm="Revoke session" onConfirm={() => revoke.mutateAsync()} pending={revoke.isPending} error={revoke.error}>
      <p>That browser is signed out at its next request.</p>
    </ConfirmDialog>
  )
}

function Sessions() {
  const { api } = useApi()
  const queries = useQueryClient()
  const sessions = useQuery({ queryKey: SESSIONS_KEY, queryFn: accountApi(api).sessions })
  const refresh = () => queries.invalidateQueries({ queryKey: SESSIONS_KEY })
  const columns: Column<AccountSession>[] = [
    {
      header: 'Browser',
      cell: (s) => (
        <span title={s.userAgent ?? undefined}>
          {browserName(s.userAgent)} {s.current && <span className="badge badge-ok">This browser</span>}
        </span>
      ),
    },
    { header: 'Address', cell: (s) => s.address ?? <span className="muted">—</span> },
    { header: 'Signed in', cell: (s) => <Time value={s.createdAt} /> },
    { header: 'Last used', cell: (s) => <Time value={s.lastSeenAt} /> },
    { header: 'Actions', align: 'end', cell: (s) => (s.current ? null : <RevokeSession session={s} onRevoked={refresh} />) },
  ]
  return (
    <section className="panel" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <p className="muted">Where you are signed in. Revoke one you do not recognise, then change your password.</p>
      {sessions.error ? (
        <ErrorState error={sessions.error} retry={() => sessions.refetch()} />
      ) : !sessions.data ? (
        <Loading label="Loading your sessions" />
      ) : (
        <DataTable caption="Your sessions" columns={columns} rows={sessions.data} rowKey={(s) => s.id} />
      )}
    </section>
  )
}

const currentPasswordField = (error: unknown) => (
  <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" isRequired error={fieldError(error, 'currentPassword')} />
)

/** The code of the authenticator app, and with `withPassword` the account's current password too. */
function CodeForm({ label, submitLabel, danger, withPassword, onCode }: { label: string; submitLabel: string; danger?: boolean; withPassword?: boolean; onCode: CodeMutation }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    onCode.mutate({ code: String(form.get('code') ?? '').trim(), currentPassword: String(form.get('currentPassword') ?? '') })
  }
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <FormErrors error={onCode.error} fields={withPassword ? ['code', 'currentPassword'] : ['code']} />
      <Field label={label} name="code" inputMode="numeric" autoComplete="one-time-code" isRequired description="The 6-digit code your authenticator app shows for Mailstead." error={fieldError(onCode.error, 'code')} className="field-code" />
      {withPassword && currentPasswordField(onCode.error)}
      <Button type="submit" className={danger ? 'button button-danger' : 'button button-primary'} isPending={onCode.isPending}>
        {submitLabel}
      </Button>
    </Form>
  )
}

type CodeMutation = { mutate: (body: { code: string; currentPassword: string }) => void; error: unknown; isPending: boolean }

/** Asks for the current password before an enrolment starts: an open session alone may not add a second factor. */
function StartEnrolment({ enroll }: { enroll: { mutate: (currentPassword: string) => void; error: unknown; isPending: boolean } }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    enroll.mutate(String(new FormData(event.currentTarget).get('currentPassword') ?? ''))
  }
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <FormErrors error={enroll.error} fields={['currentPassword']} />
      {currentPasswordField(enroll.error)}
      <Button type="submit" className="button button-primary" isPending={enroll.isPending}>
        Set up two-step sign-in
      </Button>
    </Form>
  )
}

/** A new password, with the current one; the account's other sessions end. */
function ChangePassword() {
  const { api } = useApi()
  const queries = useQueryClient()
  const change = useMutation({ mutationFn: accountApi(api).changePassword, onSuccess: () => queries.invalidateQueries({ queryKey: SESSIONS_KEY }) })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    change.mutate({ currentPassword: String(form.get('currentPassword') ?? ''), password: String(form.get('password') ?? '') })
  }
  return (
    <section className="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <p className="muted">Changing it signs out your other sessions.</p>
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={change.error} fields={['currentPassword', 'password']} />
        {currentPasswordField(change.error)}
        <Field label="New password" name="password" type="password" autoComplete="new-password" isRequired description="At least 10 characters." error={fieldError(change.error, 'password')} />
        <Button type="submit" className="button button-primary" isPending={change.isPending}>
          Change password
        </Button>
        {change.isSuccess && <p role="status">Password changed. Your other sessions are signed out.</p>}
      </Form>
    </section>
  )
}

function SecondFactor({ enabled }: { enabled: boolean }) {
  const { api } = useApi()
  const queries = useQueryClient()
  const refresh = () => queries.invalidateQueries({ queryKey: SESSION_KEY })
  const enroll = useMutation({ mutationFn: accountApi(api).enrollTotp })
  const confirm = useMutation({ mutationFn: ({ code }: { code: string }) => accountApi(api).confirmTotp(code), onSuccess: () => refresh().then(() => enroll.reset()) })
  const disable = useMutation({ mutationFn: accountApi(api).disableTotp, onSuccess: refresh })
  return (
    <section className="panel" aria-labelledby="totp-heading">
      <h2 id="totp-heading">Two-step sign-in</h2>
      {enabled ? (
        <>
          <p>
            <span className="badge badge-ok">On</span> Signing in asks for a code from your authenticator app after your password.
          </p>
          <p className="muted">To turn it off, give a current code and your password.</p>
          <CodeForm label="Authenticator code" submitLabel="Turn off two-step sign-in" danger withPassword onCode={disable} />
        </>
      ) : enroll.data ? (
        <>
          <p>Add Mailstead to your authenticator app (1Password, Google Authenticator, Aegis and the like) with this setup key, or paste the otpauth link into an app that takes one. They are shown this once.</p>
          <dl className="facts totp-facts">
            <dt>Setup key</dt>
            <dd className="copy-row">
              <code aria-label="Setup key">{groupedSecret(enroll.data.secret)}</code>
              <CopyButton value={enroll.data.secret} label="setup key" />
            </dd>
            <dt>otpauth link</dt>
            <dd className="copy-row">
              <code className="secret-value" aria-label="otpauth link">
                {enroll.data.uri}
              </code>
              <CopyButton value={enroll.data.uri} label="otpauth link" />
            </dd>
          </dl>
          <p>Then type the code the app shows, to check that it works. Until then, sign-in does not ask for one.</p>
          <CodeForm label="Code from your app" submitLabel="Turn on two-step sign-in" onCode={confirm} />
          <Button className="button button-small cancel-enroll" onPress={() => enroll.reset()}>
            Cancel
          </Button>
        </>
      ) : (
        <>
          <p>Off. With it on, signing in also asks for a code from an authenticator app on your phone, so a stolen password is not enough.</p>
          <StartEnrolment enroll={enroll} />
        </>
      )}
    </section>
  )
}

/** The signed-in person's own things: where they are signed in, their password and their second factor. */
export default function Account() {
  const session = useSession()
  const account = session.data?.account
  return (
    <>
      <PageHeader title="Your account" description={account ? <>Signed in as {account.email}.</> : undefined} />
      <Sessions />
      <ChangePassword />
      {account && <SecondFactor enabled={account.totpEnabled === true} />}
    </>
  )
}
