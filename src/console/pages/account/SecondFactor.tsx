import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent, type ReactNode } from 'react'
import { Button, DialogTrigger, Form } from 'react-aria-components'
import { accountApi, type TotpEnrollment } from '../../api/account.api.ts'
import { useApi } from '../../api/context.tsx'
import { SESSION_KEY } from '../../app/query-keys.ts'
import { Card } from '../../components/Card.tsx'
import { CopyButton } from '../../components/CopyButton.tsx'
import { Dialog, DialogActions } from '../../components/Dialog.tsx'
import { Field } from '../../components/Field.tsx'
import { fieldError, FormErrors } from '../../components/FormErrors.tsx'
import { SubmitButton, useSubmitOnce } from '../../components/SubmitButton.tsx'
import { groupedSecret } from '../../lib/account-view.ts'
import { CurrentPasswordField } from './CurrentPasswordField.tsx'
import { RecoveryCodesOnce } from './RecoveryCodes.tsx'

const TOTP_KEY = ['account', 'totp']

type CodeMutation = { mutateAsync: (body: { code: string; currentPassword: string }) => Promise<unknown>; error: unknown; isPending: boolean }
type PasswordMutation = { mutateAsync: (currentPassword: string) => Promise<unknown>; error: unknown; isPending: boolean; reset: () => void }

/** The code of the authenticator app, and with `withPassword` the account's current password too. */
function CodeForm({ label, submitLabel, danger, withPassword, onCode }: { label: string; submitLabel: string; danger?: boolean; withPassword?: boolean; onCode: CodeMutation }) {
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    once(() => onCode.mutateAsync({ code: String(form.get('code') ?? '').trim(), currentPassword: String(form.get('currentPassword') ?? '') }))
  }
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <FormErrors error={onCode.error} fields={withPassword ? ['code', 'currentPassword'] : ['code']} />
      <Field label={label} name="code" inputMode="numeric" autoComplete="one-time-code" isRequired description="The 6-digit code your authenticator app shows for Mailstead." error={fieldError(onCode.error, 'code')} className="field-code" />
      {withPassword && <CurrentPasswordField error={onCode.error} />}
      <SubmitButton pending={onCode.isPending} tone={danger ? 'danger' : 'primary'}>
        {submitLabel}
      </SubmitButton>
    </Form>
  )
}

/** A form of the current password alone: starting an enrolment, new recovery codes. */
function PasswordForm({ action, submitLabel, children }: { action: PasswordMutation; submitLabel: string; children?: ReactNode }) {
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => action.mutateAsync(String(new FormData(event.currentTarget).get('currentPassword') ?? '')))
  }
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <FormErrors error={action.error} fields={['currentPassword']} />
      <CurrentPasswordField error={action.error} />
      {children ?? <SubmitButton pending={action.isPending}>{submitLabel}</SubmitButton>}
    </Form>
  )
}

/** The QR code of the otpauth link (the server draws it), the setup key and the link, shown this once. */
function Enrolment({ enrollment }: { enrollment: TotpEnrollment }) {
  const qr = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrollment.qrSvg)}`
  return (
    <div className="totp-enroll">
      <img className="totp-qr" src={qr} width={176} height={176} alt="QR code to scan with your authenticator app: it holds the otpauth link below" />
      <div className="totp-enroll-text">
        <p>Scan the QR code with your authenticator app (1Password, Google Authenticator, Aegis and the like), or type the setup key into it. They are shown this once.</p>
        <dl className="facts totp-facts">
          <dt>Setup key</dt>
          <dd className="copy-row">
            <code aria-label="Setup key">{groupedSecret(enrollment.secret)}</code>
            <CopyButton value={enrollment.secret} label="setup key" />
          </dd>
          <dt>otpauth link</dt>
          <dd className="copy-row">
            <code className="secret-value" aria-label="otpauth link">
              {enrollment.uri}
            </code>
            <CopyButton value={enrollment.uri} label="otpauth link" />
          </dd>
        </dl>
      </div>
    </div>
  )
}

/** "New recovery codes…": the current password in a dialog; the codes then show in the card. */
function NewRecoveryCodes({ renew }: { renew: PasswordMutation }) {
  return (
    <DialogTrigger onOpenChange={(open) => open && renew.reset()}>
      <Button className="button">New recovery codes…</Button>
      <Dialog title="New recovery codes">
        {(close) => (
          <>
            <p>Ten new codes replace the ones you have: those stop working, used or not.</p>
            <PasswordForm action={{ ...renew, mutateAsync: (password) => renew.mutateAsync(password).then(close) }} submitLabel="Make new codes">
              <DialogActions close={close} submit="Make new codes" pending={renew.isPending} />
            </PasswordForm>
          </>
        )}
      </Dialog>
    </DialogTrigger>
  )
}

function CodesLeft({ left }: { left: number | undefined }) {
  if (left === undefined) return null
  const low = left <= 2
  return (
    <p>
      Recovery codes: <strong>{left === 1 ? '1 of 10 left' : `${left} of 10 left`}</strong>
      {low && <span className="badge badge-warn recovery-low">{left === 0 ? 'None left: make new ones' : 'Running low: make new ones'}</span>}
    </p>
  )
}

/**
 * Two-step sign-in: off (the current password starts it), enrolling (QR code, setup key, then a
 * code confirms it), or on (recovery codes left, new ones, turning it off). The recovery codes
 * the server answers are shown once, until "I have stored them".
 */
export function SecondFactor({ email, enabled }: { email: string; enabled: boolean }) {
  const { api } = useApi()
  const queries = useQueryClient()
  const [codes, setCodes] = useState<string[]>()
  const state = useQuery({ queryKey: TOTP_KEY, queryFn: accountApi(api).secondFactor, enabled })
  const refresh = () => Promise.all([queries.invalidateQueries({ queryKey: SESSION_KEY }), queries.invalidateQueries({ queryKey: TOTP_KEY })])
  const enroll = useMutation({ mutationFn: accountApi(api).enrollTotp })
  const confirm = useMutation({
    mutationFn: ({ code }: { code: string }) => accountApi(api).confirmTotp(code),
    onSuccess: (done) => {
      setCodes(done.recoveryCodes)
      return refresh().then(() => enroll.reset())
    },
  })
  const disable = useMutation({ mutationFn: accountApi(api).disableTotp, onSuccess: refresh })
  const renew = useMutation({
    mutationFn: accountApi(api).newRecoveryCodes,
    onSuccess: (done) => {
      setCodes(done.recoveryCodes)
      return queries.invalidateQueries({ queryKey: TOTP_KEY })
    },
  })
  if (enabled && codes) {
    return (
      <Card title="Two-step sign-in">
        <p>
          <span className="badge badge-ok">On</span> Signing in asks for a code from your authenticator app after your password.
        </p>
        <RecoveryCodesOnce email={email} codes={codes} onDone={() => setCodes(undefined)} />
      </Card>
    )
  }
  return (
    <Card title="Two-step sign-in">
      {enabled ? (
        <>
          <p>
            <span className="badge badge-ok">On</span> Signing in asks for a code from your authenticator app after your password.
          </p>
          <CodesLeft left={state.data?.recoveryCodesLeft} />
          <p className="muted">A recovery code signs in once in place of the app’s code. New ones replace the old.</p>
          <NewRecoveryCodes renew={renew} />
          <div className="settings-gap" />
          <p className="muted">To turn two-step sign-in off, give a current code and your password.</p>
          <CodeForm label="Authenticator code" submitLabel="Turn off two-step sign-in" danger withPassword onCode={disable} />
        </>
      ) : enroll.data ? (
        <>
          <Enrolment enrollment={enroll.data} />
          <p>Then type the code the app shows, to check that it works. Until then, sign-in does not ask for one.</p>
          <CodeForm label="Code from your app" submitLabel="Turn on two-step sign-in" onCode={confirm} />
          <Button className="button button-small cancel-enroll" onPress={() => enroll.reset()}>
            Cancel
          </Button>
        </>
      ) : (
        <>
          <p>Off. With it on, signing in also asks for a code from an authenticator app on your phone, so a stolen password is not enough.</p>
          <PasswordForm action={enroll} submitLabel="Set up two-step sign-in" />
        </>
      )}
    </Card>
  )
}
