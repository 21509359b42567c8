import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link, useLocation, useSearch } from 'wouter'
import { useApi } from '../api/context.tsx'
import { ApiError } from '../api/api-errors.ts'
import { SESSION_KEY } from '../app/query-keys.ts'
import { useSession } from '../app/session.tsx'
import { AuthCard } from '../components/AuthCard.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { ErrorState, Loading } from '../components/States.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'

/** Where a project's invitation link leads: accept it signed in, or by choosing a password. */
export default function Invitation() {
  const { api, auth } = useApi()
  const queries = useQueryClient()
  const [, navigate] = useLocation()
  const session = useSession()
  const token = new URLSearchParams(useSearch()).get('token') ?? ''
  const invitation = useQuery({ queryKey: ['invitation', token], queryFn: () => auth.lookUpInvitation(token), retry: false })
  const once = useSubmitOnce()
  const accept = useMutation({
    mutationFn: auth.acceptInvitation,
    onSuccess: async (answer) => {
      localStorage.setItem('mailstead.project', String(answer.projectId))
      if (answer.csrfToken) api.csrfToken = answer.csrfToken
      await queries.invalidateQueries({ queryKey: SESSION_KEY })
      navigate('/', { replace: true })
    },
  })
  if (invitation.error) {
    // The API names the token as the field in error; the person reading this has no field, only the link.
    const why = invitation.error instanceof ApiError ? invitation.error.fieldMessage('token') : undefined
    return (
      <AuthCard title="This invitation cannot be used">
        {why ? (
          <div className="state state-error" role="alert">
            <p className="state-title">{`${why[0]!.toUpperCase()}${why.slice(1)}.`}</p>
            <p>Ask whoever invited you for a new link.</p>
          </div>
        ) : (
          <ErrorState error={invitation.error} />
        )}
      </AuthCard>
    )
  }
  if (!invitation.data || session.isPending) return <Loading label="Loading the invitation" />
  const { email, role, projectName } = invitation.data
  const signedInAs = session.data?.account.email
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const password = new FormData(event.currentTarget).get('password')
    once(() => accept.mutateAsync({ token, ...(password !== null && { password: String(password) }) }))
  }
  return (
    <AuthCard title={`Join ${projectName}`} intro={<p>You are invited to the project {projectName} as {role}, at {email}.</p>}>
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={accept.error} fields={signedInAs ? [] : ['password']} />
        {signedInAs ? (
          <p>You are signed in as {signedInAs}.</p>
        ) : (
          <Field label="Choose a password" name="password" type="password" autoComplete="new-password" isRequired description="At least 10 characters. It makes your account." error={fieldError(accept.error, 'password')} />
        )}
        <Button type="submit" className="button button-primary" isPending={accept.isPending}>
          Accept invitation
        </Button>
      </Form>
      {!signedInAs && (
        <p className="auth-foot muted">
          Have an account already? <Link href={`/sign-in?next=${encodeURIComponent(`/invitation?token=${token}`)}`}>Sign in</Link> first.
        </p>
      )}
    </AuthCard>
  )
}
