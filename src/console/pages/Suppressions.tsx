import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { useApi } from '../api/context.tsx'
import { suppressionsApi, type Suppression } from '../api/suppressions.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { PagedTable } from '../components/PagedTable.tsx'
import { Empty } from '../components/States.tsx'
import type { Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'

const REASONS: Record<Suppression['reason'], string> = { hard_bounce: 'Hard bounce', complaint: 'Complaint', manual: 'Added by hand' }

/** The roles that may change the list (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
const EDITORS = ['owner', 'admin', 'member']

function AddSuppression({ onAdded }: { onAdded: () => void }) {
  const { api } = useApi()
  const add = useMutation({ mutationFn: suppressionsApi(api).add, onSuccess: onAdded })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const values = new FormData(form)
    const detail = String(values.get('detail') ?? '').trim()
    add.mutate({ email: String(values.get('email')), ...(detail && { detail }) }, { onSuccess: () => form.reset() })
  }
  return (
    <section className="panel" aria-labelledby="add-suppression">
      <h2 id="add-suppression">Add an address</h2>
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={add.error} fields={['email', 'detail']} />
        <Field label="Email address" name="email" type="email" isRequired error={fieldError(add.error, 'email')} />
        <Field label="Note" name="detail" description="Optional: why, for whoever reads the list later." error={fieldError(add.error, 'detail')} />
        <Button type="submit" className="button button-primary" isPending={add.isPending}>
          Suppress address
        </Button>
      </Form>
    </section>
  )
}

function RemoveSuppression({ email, onRemoved }: { email: string; onRemoved: () => void }) {
  const { api } = useApi()
  const remove = useMutation({ mutationFn: () => suppressionsApi(api).remove(email), onSuccess: onRemoved })
  return (
    <ConfirmDialog
      trigger="Remove"
      triggerLabel={`Remove ${email}`}
      title={`Send to ${email} again?`}
      confirm="Remove from the list"
      onConfirm={() => remove.mutateAsync()}
      pending={remove.isPending}
      error={remove.error}
    >
      <p>Mail to this address will be sent again. If it bounces hard or its owner complains, it comes back on the list.</p>
    </ConfirmDialog>
  )
}

/** The addresses the project does not send to: newest first, paged on the server; add one, remove one. */
export default function Suppressions() {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const queryKey = useProjectKey('suppressions')
  const refresh = () => queries.invalidateQueries({ queryKey })
  const mayEdit = EDITORS.includes(project.role)
  const columns: Column<Suppression>[] = [
    { header: 'Email', cell: (s) => s.email },
    { header: 'Reason', cell: (s) => REASONS[s.reason] },
    { header: 'Note', cell: (s) => s.detail ?? <span className="muted">—</span> },
    { header: 'Since', cell: (s) => <Time value={s.createdAt} /> },
    ...(mayEdit ? [{ header: 'Actions', align: 'end' as const, cell: (s: Suppression) => <RemoveSuppression email={s.email} onRemoved={refresh} /> }] : []),
  ]
  return (
    <>
      <PageHeader title="Suppressions" description="Mail is not sent to these addresses. Hard bounces and complaints put them here; you can add and remove them." />
      {mayEdit && <AddSuppression onAdded={refresh} />}
      <PagedTable
        caption="Suppressed addresses"
        queryKey={queryKey}
        fetchPage={suppressionsApi(api).page}
        columns={columns}
        rowKey={(s) => s.email}
        empty={<Empty title="No address is suppressed.">{mayEdit && <p>Addresses that bounce hard or complain are added here by themselves.</p>}</Empty>}
      />
    </>
  )
}
