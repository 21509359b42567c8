import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form, Input, Label, SearchField } from 'react-aria-components'
import { useApi } from '../api/context.tsx'
import { suppressionsApi, type Suppression, type SuppressionImport } from '../api/suppressions.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { PagedTable } from '../components/PagedTable.tsx'
import { Empty } from '../components/States.tsx'
import type { Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { useDebounced } from '../lib/debounce.ts'
import { useSubmitOnce } from '../components/SubmitButton.tsx'
import { toast } from '../components/Toast.tsx'
import { Card } from '../components/Card.tsx'
import { FilterBar } from '../components/FilterBar.tsx'

const REASONS: Record<Suppression['reason'], string> = { hard_bounce: 'Hard bounce', complaint: 'Complaint', manual: 'Added by hand', erased: 'Erased contact' }

/** The roles that may change the list (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
const EDITORS = ['owner', 'admin', 'member']

function AddSuppression({ onAdded }: { onAdded: () => void }) {
  const { api } = useApi()
  const add = useMutation({ mutationFn: suppressionsApi(api).add, onSuccess: onAdded })
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const values = new FormData(form)
    const detail = String(values.get('detail') ?? '').trim()
    once(() => add.mutateAsync({ email: String(values.get('email')), ...(detail && { detail }) }, { onSuccess: () => form.reset() }))
  }
  return (
    <Card title="Add an address">
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={add.error} fields={['email', 'detail']} />
        <Field label="Email address" name="email" type="email" isRequired error={fieldError(add.error, 'email')} />
        <Field label="Note" name="detail" description="Optional: why, for whoever reads the list later." error={fieldError(add.error, 'detail')} />
        <Button type="submit" className="button button-primary" isPending={add.isPending}>
          Suppress address
        </Button>
      </Form>
    </Card>
  )
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`

/** What an import did, line by line for the lines it could not take. */
function ImportResult({ result }: { result: SuppressionImport }) {
  return (
    <div className="import-result" role="status">
      <p>
        {plural(result.added, 'address', 'addresses')} added, {plural(result.alreadySuppressed, 'was', 'were')} on the list already
        {result.failedCount > 0 && `, ${plural(result.failedCount, 'line is', 'lines are')} not an address`}.
      </p>
      {result.failed.length > 0 && (
        <ul className="import-failures" aria-label="Lines not imported">
          {result.failed.map((f) => (
            <li key={f.line}>
              Line {f.line}: {f.error}
            </li>
          ))}
          {result.failedCount > result.failed.length && <li>…and {(result.failedCount - result.failed.length).toLocaleString()} more</li>}
        </ul>
      )}
    </div>
  )
}

/** A CSV file of addresses, streamed to the server (at most 5 MiB), and what became of each line. */
function ImportSuppressions({ onImported }: { onImported: () => void }) {
  const { api } = useApi()
  const upload = useMutation({ mutationFn: suppressionsApi(api).import, onSuccess: onImported })
  const [missing, setMissing] = useState(false)
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const file = new FormData(form).get('file')
    if (!(file instanceof File) || file.size === 0) return setMissing(true)
    setMissing(false)
    once(() => upload.mutateAsync(file, { onSuccess: () => form.reset() }))
  }
  const fileError = missing ? 'Choose a CSV file first' : fieldError(upload.error, 'file')
  return (
    <Card title="Import from CSV">
      <form onSubmit={submit} className="form" noValidate>
        <FormErrors error={upload.error} fields={['file']} />
        <div className="field">
          <label className="field-label" htmlFor="suppression-file">
            CSV file
          </label>
          <input id="suppression-file" className="input" type="file" name="file" accept=".csv,text/csv,text/plain" aria-invalid={fileError ? true : undefined} aria-describedby="suppression-file-hint" />
          <p id="suppression-file-hint" className="field-hint">
            One address a line, or a header with an email column (and perhaps a detail column). At most 5 MiB.
          </p>
          {fileError && <p className="field-error">{fileError}</p>}
        </div>
        <Button type="submit" className="button" isPending={upload.isPending}>
          Import addresses
        </Button>
      </form>
      {upload.data && <ImportResult result={upload.data} />}
    </Card>
  )
}

function RemoveSuppression({ email, onRemoved }: { email: string; onRemoved: () => void }) {
  const { api } = useApi()
  const remove = useMutation({
    mutationFn: () => suppressionsApi(api).remove(email),
    onSuccess: () => {
      toast({ title: 'Removed from the list', description: `Mail to ${email} is sent again.`, tone: 'ok' })
      return onRemoved()
    },
  })
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
  const [typed, setTyped] = useState('')
  const search = useDebounced(typed.trim())
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
      {mayEdit && (
        <div className="panels">
          <AddSuppression onAdded={refresh} />
          <ImportSuppressions onImported={refresh} />
        </div>
      )}
      <FilterBar
        search={
          <SearchField className="field search" value={typed} onChange={setTyped}>
            <Label className="visually-hidden">Search addresses</Label>
            <div className="search-row">
              <Input className="input" placeholder="Search addresses, e.g. @example.com" />
              {/* React Aria names it "Clear search"; Escape clears too. */}
              <Button className="button search-clear">Clear</Button>
            </div>
          </SearchField>
        }
      />
      <PagedTable
        // A new search starts again at its first page.
        key={search}
        caption="Suppressed addresses"
        queryKey={[...queryKey, { search }]}
        fetchPage={(cursor, size) => suppressionsApi(api).page(cursor, size, search)}
        columns={columns}
        rowKey={(s) => s.email}
        empty={
          search ? (
            <Empty title={`No suppressed address contains “${search}”.`} />
          ) : (
            <Empty title="No address is suppressed.">{mayEdit && <p>Addresses that bounce hard or complain are added here by themselves.</p>}</Empty>
          )
        }
      />
    </>
  )
}
