import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { accountApi, type AccountSession } from '../api/account.api.ts'
import { useApi } from '../api/context.tsx'
import { useSession } from '../app/session.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { browserName } from '../lib/account-view.ts'
import { CurrentPasswordField } from './account/CurrentPasswordField.tsx'
import { SecondFactor } from './account/SecondFactor.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'
import { Card } from '../components/Card.tsx'

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
    <Card title="Sessions">
      <p className="muted">Where you are signed in. Revoke one you do not recognise, then change your password.</p>
      {sessions.error ? (
        <ErrorState error={sessions.error} retry={() => sessions.refetch()} />
      ) : !sessions.data ? (
        <Loading label="Loading your sessions" />
      ) : (
        <DataTable caption="Your sessions" columns={columns} rows={sessions.data} rowKey={(s) => s.id} />
      )}
    </Card>
  )
}

/** A new password, with the current one; the account's other sessions end. */
function ChangePassword() {
  const { api } = useApi()
  const queries = useQueryClient()
  const change = useMutation({ mutationFn: accountApi(api).changePassword, onSuccess: () => queries.invalidateQueries({ queryKey: SESSIONS_KEY }) })
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    once(() => change.mutateAsync({ currentPassword: String(form.get('currentPassword') ?? ''), password: String(form.get('password') ?? '') }))
  }
  return (
    <Card title="Password">
      <p className="muted">Changing it signs out your other sessions.</p>
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={change.error} fields={['currentPassword', 'password']} />
        <CurrentPasswordField error={change.error} />
        <Field label="New password" name="password" type="password" autoComplete="new-password" isRequired description="At least 10 characters." error={fieldError(change.error, 'password')} />
        <Button type="submit" className="button button-primary" isPending={change.isPending}>
          Change password
        </Button>
        {change.isSuccess && <p role="status">Password changed. Your other sessions are signed out.</p>}
      </Form>
    </Card>
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
      {account && <SecondFactor email={account.email} enabled={account.totpEnabled === true} />}
    </>
  )
}
