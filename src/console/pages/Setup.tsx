import { useMutation, useQuery } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link, useLocation, useSearch } from 'wouter'
import { useApi } from '../api/context.tsx'
import { useSignedIn } from '../app/session.tsx'
import { AuthCard } from '../components/AuthCard.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { ErrorState, Loading } from '../components/States.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'

/**
 * The first run: while no account exists, the server logs a setup link (tag SETUP) that opens this
 * page with its token; the first account is made here and signed in.
 */
export default function Setup() {
  const { auth } = useApi()
  const signedIn = useSignedIn()
  const [, navigate] = useLocation()
  const linkToken = new URLSearchParams(useSearch()).get('token') ?? ''
  const open = useQuery({ queryKey: ['setup-open'], queryFn: auth.setupOpen })
  const setup = useMutation({
    mutationFn: auth.setup,
    onSuccess: (answer) => {
      signedIn(answer)
      navigate('/', { replace: true })
    },
  })
  const once = useSubmitOnce()
  if (open.error) return <ErrorState error={open.error} retry={() => open.refetch()} />
  if (!open.data) return <Loading label="Loading" />
  if (!open.data.open) {
    return (
      <AuthCard title="Setup is done">
        <p>An account exists already on this server.</p>
        <p>
          <Link href="/sign-in">Sign in</Link>, or ask its operator for an account (<code>mailstead user create EMAIL</code>).
        </p>
      </AuthCard>
    )
  }
  // A token that came with the link is not asked for again; its error then shows above the form.
  const fields = linkToken ? ['email', 'password'] : ['token', 'email', 'password']
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    once(() => setup.mutateAsync({ token: String(form.get('token') ?? linkToken), email: String(form.get('email')), password: String(form.get('password')) }))
  }
  return (
    <AuthCard title="Set up Mailstead" intro={<p>Make the first account. It will own the projects made so far, and can invite others.</p>}>
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={setup.error} fields={fields} />
        {!linkToken && (
          <Field
            label="Setup token"
            name="token"
            isRequired
            description="The token of the setup link the server logged at start (its log line is tagged SETUP)."
            error={fieldError(setup.error, 'token')}
          />
        )}
        <Field label="Email" name="email" type="email" autoComplete="username" isRequired autoFocus error={fieldError(setup.error, 'email')} />
        <Field label="Password" name="password" type="password" autoComplete="new-password" isRequired description="At least 10 characters." error={fieldError(setup.error, 'password')} />
        <Button type="submit" className="button button-primary" isPending={setup.isPending}>
          Create account
        </Button>
      </Form>
    </AuthCard>
  )
}
