import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, DialogTrigger, Form } from 'react-aria-components'
import { useApi } from '../../api/context.tsx'
import { projectApi } from '../../api/project.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { PROJECTS_KEY } from '../../app/query-keys.ts'
import { Dialog, DialogActions } from '../../components/Dialog.tsx'
import { Field } from '../../components/Field.tsx'
import { fieldError, FormErrors } from '../../components/FormErrors.tsx'
import { useSubmitOnce } from '../../components/SubmitButton.tsx'

function RenameForm({ close }: { close: () => void }) {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const settingsKey = useProjectKey('settings')
  const rename = useMutation({
    mutationFn: (name: string) => projectApi(api).update({ name }),
    // The switcher and the Settings page show the name: both read it again, then the dialog closes.
    onSuccess: () => Promise.all([queries.invalidateQueries({ queryKey: PROJECTS_KEY }), queries.invalidateQueries({ queryKey: settingsKey })]).then(close),
  })
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => rename.mutateAsync(String(new FormData(event.currentTarget).get('name') ?? '').trim()))
  }
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <FormErrors error={rename.error} fields={['name']} />
      <Field label="Project name" name="name" defaultValue={project.name} isRequired autoFocus description="Its members see the new name at once; keys and mail are unchanged." error={fieldError(rename.error, 'name')} />
      <DialogActions close={close} submit="Rename project" pending={rename.isPending} />
    </Form>
  )
}

/** Renames the project shown (PATCH /api/v1/project): owners and admins only, whom the switcher offers it to. */
export function RenameProjectDialog() {
  const { project } = useProject()
  return (
    <DialogTrigger>
      <Button className="button button-small" aria-label={`Rename ${project.name}`}>
        Rename
      </Button>
      <Dialog title={`Rename ${project.name}`}>{(close) => <RenameForm close={close} />}</Dialog>
    </DialogTrigger>
  )
}
