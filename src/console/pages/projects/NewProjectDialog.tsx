import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, DialogTrigger, Form, Switch } from 'react-aria-components'
import type { NewProject } from '../../api/auth.api.ts'
import { useApi } from '../../api/context.tsx'
import { useProject } from '../../app/project.tsx'
import { PROJECTS_KEY } from '../../app/query-keys.ts'
import { Dialog, DialogActions } from '../../components/Dialog.tsx'
import { Field } from '../../components/Field.tsx'
import { fieldError, FormErrors } from '../../components/FormErrors.tsx'
import { SecretOnce } from '../../components/SecretOnce.tsx'
import { useSubmitOnce } from '../../components/SubmitButton.tsx'

/** The project's first keys, shown this once; the only way on is to the new project. */
function NewProjectKeys({ made, close }: { made: NewProject; close: () => void }) {
  const { select } = useProject()
  return (
    <>
      <p>
        {made.sandbox ? 'A sandbox: its mail never leaves the server. ' : ''}Its API keys are shown this once: copy the secret key now and keep it on your server. You can make more keys later.
      </p>
      <SecretOnce label="Secret key" value={made.secretKey} />
      <SecretOnce label="Public key" value={made.publicKey} />
      <div className="dialog-actions">
        <Button
          className="button button-primary"
          autoFocus
          onPress={() => {
            select(made.id)
            close()
          }}
        >
          Switch to {made.name}
        </Button>
      </div>
    </>
  )
}

type CreateProject = ReturnType<typeof useCreateProject>

function useCreateProject() {
  const { auth } = useApi()
  const queries = useQueryClient()
  // The list is read again at once: the project is the account's from now, whatever is pressed next.
  return useMutation({ mutationFn: auth.createProject, onSuccess: () => queries.invalidateQueries({ queryKey: PROJECTS_KEY }) })
}

function NewProjectForm({ create, close }: { create: CreateProject; close: () => void }) {
  const [sandbox, setSandbox] = useState(false)
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => create.mutateAsync({ name: String(new FormData(event.currentTarget).get('name') ?? '').trim(), sandbox }))
  }
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <p className="muted">A project holds its own domains, keys, mail and members. You will be its owner.</p>
      <FormErrors error={create.error} fields={['name', 'sandbox']} />
      <Field label="Project name" name="name" isRequired autoFocus error={fieldError(create.error, 'name')} />
      <div>
        <Switch className="switch" isSelected={sandbox} onChange={setSandbox} aria-describedby="new-project-sandbox-hint">
          <span className="switch-track" aria-hidden="true">
            <span className="switch-thumb" />
          </span>
          Sandbox: mail never leaves the server
        </Switch>
        <p id="new-project-sandbox-hint" className="field-hint">
          It sends from any address without a domain; each message lands in the project’s inbox, and the recipient picks the outcome (bounce@…, complaint@…).
        </p>
      </div>
      <DialogActions close={close} submit="Create project" pending={create.isPending} />
    </Form>
  )
}

/**
 * "New project" beside the switcher: a name and the sandbox switch, then the project's first keys
 * shown once, then that project. Once the keys are shown, Escape and a click beside the dialog no
 * longer close it: it closes by switching, after the keys were seen.
 */
export function NewProjectDialog() {
  const create = useCreateProject()
  const made = create.data
  return (
    <DialogTrigger onOpenChange={(open) => open && create.reset()}>
      <Button className="button button-small">New project</Button>
      <Dialog title={made ? `${made.name} is ready` : 'New project'} dismissable={!made}>
        {(close) => (made ? <NewProjectKeys made={made} close={close} /> : <NewProjectForm create={create} close={close} />)}
      </Dialog>
    </DialogTrigger>
  )
}
