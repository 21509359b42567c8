import { useMutation } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link, useSearch } from 'wouter'
import { useApi } from '../api/context.tsx'
import { AuthCard } from '../components/AuthCard.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'

/** The page of a password link (`mailstead user create` or `user reset-password` prints one). */
export default function SetPassword() {
  const once = useSubmitOnce()
  const { auth } = useApi()
  const token = new URLSearchParams(useSearch()).get('token') ?? ''
  const save = useMutation({ mutationFn: auth.setPassword })
  if (save.data) {
    return (
      <AuthCard title="Password set">
        <p>
          Your password for {save.data.account.email} is set, and any sessions you had are ended. <Link href="/sign-in">Sign in</Link>.
        </p>
      </AuthCard>
    )
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => save.mutateAsync({ token, password: String(new FormData(event.currentTarget).get('password')) }))
  }
  return (
    <AuthCard title="Choose a password">
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={save.error} fields={['password']} />
        <Field label="New password" name="password" type="password" autoComplete="new-password" isRequired autoFocus description="At least 10 characters." error={fieldError(save.error, 'password')} />
        <Button type="submit" className="button button-primary" isPending={save.isPending}>
          Set password
        </Button>
      </Form>
    </AuthCard>
  )
}
