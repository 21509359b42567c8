import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, Checkbox, Form } from 'react-aria-components'
import { useApi } from '../api/context.tsx'
import { PROJECTS_KEY } from '../app/query-keys.ts'
import { AuthCard } from '../components/AuthCard.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { SecretOnce } from '../components/SecretOnce.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'

/** An account with no project makes its first; the project's first keys are shown this once. */
export function FirstProject({ onCreated }: { onCreated: (id: number) => void }) {
  const once = useSubmitOnce()
  const { auth } = useApi()
  const queries = useQueryClient()
  const create = useMutation({ mutationFn: auth.createProject })
  const made = create.data
  if (made) {
    const done = async () => {
      await queries.invalidateQueries({ queryKey: PROJECTS_KEY })
      onCreated(made.id)
    }
    return (
      <AuthCard title={`${made.name} is ready`} intro={<p>Its API keys are shown this once: copy the secret key now and keep it on your server. You can make more keys later.</p>}>
        <SecretOnce label="Secret key" value={made.secretKey} />
        <SecretOnce label="Public key" value={made.publicKey} />
        <Button className="button button-primary" onPress={done}>
          Continue to the console
        </Button>
      </AuthCard>
    )
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    once(() => create.mutateAsync({ name: String(form.get('name')), sandbox: form.get('sandbox') === 'on' }))
  }
  return (
    <AuthCard title="Create your first project" intro={<p>A project holds domains, keys, contacts and mail. You will be its owner.</p>}>
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={create.error} fields={['name']} />
        <Field label="Project name" name="name" isRequired autoFocus error={fieldError(create.error, 'name')} />
        <Checkbox name="sandbox" value="on" className="checkbox">
          <span className="checkbox-box" aria-hidden="true">
            <svg viewBox="0 0 18 18">
              <polyline points="2 9.5 7 14 16 4" />
            </svg>
          </span>
          <span>Sandbox: try sending without a domain; its mail never leaves the server</span>
        </Checkbox>
        <Button type="submit" className="button button-primary" isPending={create.isPending}>
          Create project
        </Button>
      </Form>
    </AuthCard>
  )
}
