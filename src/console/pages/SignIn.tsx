import { useMutation, useQuery } from '@tanstack/react-query'
import { useEffect, useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link, useLocation } from 'wouter'
import { TOTP_REQUIRED } from '../api/auth.api.ts'
import { useApi } from '../api/context.tsx'
import { ApiError } from '../api/api-errors.ts'
import { useNextPath, useSession, useSignedIn } from '../app/session.tsx'
import { AuthCard } from '../components/AuthCard.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'

const FIELDS = ['email', 'password', 'code'] as const

export default function SignIn() {
  const { auth } = useApi()
  const session = useSession()
  const signedIn = useSignedIn()
  const next = useNextPath()
  const [, navigate] = useLocation()
  const [needsCode, setNeedsCode] = useState(false)
  const setup = useQuery({ queryKey: ['setup-open'], queryFn: auth.setupOpen })
  const signIn = useMutation({
    mutationFn: auth.signIn,
    onSuccess: (answer) => {
      signedIn(answer)
      navigate(next, { replace: true })
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === TOTP_REQUIRED) setNeedsCode(true)
    },
  })
  useEffect(() => {
    if (session.data) navigate(next, { replace: true })
  }, [session.data, next, navigate])
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const code = String(form.get('code') ?? '').trim()
    once(() => signIn.mutateAsync({ email: String(form.get('email')), password: String(form.get('password')), ...(code && { code }) }))
  }
  // Being asked for the code is the next step, not an error.
  const error = signIn.error instanceof ApiError && signIn.error.code === TOTP_REQUIRED ? undefined : signIn.error
  return (
    <AuthCard title="Sign in">
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={error} fields={FIELDS} />
        <Field label="Email" name="email" type="email" autoComplete="username" isRequired autoFocus error={fieldError(error, 'email')} />
        <Field label="Password" name="password" type="password" autoComplete="current-password" isRequired error={fieldError(error, 'password')} />
        {needsCode && (
          <Field
            label="Authenticator code"
            name="code"
            autoComplete="one-time-code"
            isRequired
            autoFocus
            description="The 6-digit code your authenticator app shows for Mailstead, or one of your recovery codes (each works once)."
            error={fieldError(error, 'code')}
          />
        )}
        <Button type="submit" className="button button-primary" isPending={signIn.isPending}>
          Sign in
        </Button>
      </Form>
      <p className="auth-foot muted">
        Forgot your password? Ask the server’s operator for a link (<code>mailstead user reset-password</code>).
        {setup.data?.open && (
          <>
            {' '}
            No account exists yet: <Link href="/setup">set up Mailstead</Link>.
          </>
        )}
      </p>
    </AuthCard>
  )
}
