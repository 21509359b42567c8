import { useMutation } from '@tanstack/react-query'
import { Fragment, useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import type { Contact, ContactPatch } from '../../../api/contact.api.ts'
import { Card } from '../../../components/Card.tsx'
import { FormErrors } from '../../../components/FormErrors.tsx'
import { SubmitButton } from '../../../components/SubmitButton.tsx'
import { toast } from '../../../components/Toast.tsx'
import { dataPatch, newRow, PICKABLE, retyped, rowsOf, TYPE_NAMES, type DataRow, type DataType } from '../../../lib/contact-data.ts'
import { isoOfLocalInput, localInputOf } from '../../../lib/email-filters.ts'

/** The value's input, as its type wants it: text, a number, yes/no, a date and time in the reader's zone. */
function ValueInput({ row, label, invalid, onChange }: { row: DataRow; label: string; invalid: boolean; onChange: (text: string) => void }) {
  const common = { className: 'input input-compact', 'aria-label': label, 'aria-invalid': invalid || undefined }
  switch (row.type) {
    case 'boolean':
      return (
        <select {...common} value={row.text} onChange={(e) => onChange(e.target.value)}>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
      )
    case 'date':
      return <input {...common} type="datetime-local" value={localInputOf(row.text)} onChange={(e) => onChange(isoOfLocalInput(e.target.value) ?? e.target.value)} />
    case 'number':
      return <input {...common} inputMode="decimal" value={row.text} onChange={(e) => onChange(e.target.value)} />
    case 'null':
      return <input {...common} value="" placeholder="null: saving removes it" readOnly />
    default:
      return <input {...common} value={row.text} onChange={(e) => onChange(e.target.value)} />
  }
}

function Row({ row, problem, onChange, onRemove }: { row: DataRow; problem?: string; onChange: (row: DataRow) => void; onRemove: () => void }) {
  const name = row.key.trim() || 'new key'
  const types = PICKABLE.some((t) => t.id === row.type) ? PICKABLE : [...PICKABLE, { id: row.type, label: TYPE_NAMES[row.type] }]
  const errorId = `${row.id}-error`
  return (
    <li className="data-row">
      <div className="data-row-fields" aria-describedby={problem ? errorId : undefined}>
        <input className="input input-compact data-key" aria-label={`Key of ${name}`} value={row.key} placeholder="key" onChange={(e) => onChange({ ...row, key: e.target.value })} />
        <select className="input input-compact data-type" aria-label={`Type of ${name}`} value={row.type} onChange={(e) => onChange(retyped(row, e.target.value as DataType))}>
          {types.map((t) => (
            <option key={t.id} value={t.id}>
              {t.label}
            </option>
          ))}
        </select>
        <ValueInput row={row} label={`Value of ${name}`} invalid={problem !== undefined} onChange={(text) => onChange({ ...row, text })} />
        <Button className="button button-small" aria-label={`Remove ${name}`} onPress={onRemove}>
          Remove
        </Button>
      </div>
      {problem && (
        <span id={errorId} className="field-error">
          {problem}
        </span>
      )}
    </li>
  )
}

/** A contact's data as typed rows: add, change or remove keys, then save only what changed. */
export function DataEditor({ contact, save }: { contact: Contact; save: (patch: ContactPatch) => Promise<unknown> }) {
  const [rows, setRows] = useState(() => rowsOf(contact.data))
  const [problems, setProblems] = useState<Record<string, string>>({})
  const saving = useMutation({
    mutationFn: save,
    onSuccess: () => toast({ title: 'Data saved', tone: 'ok' }),
  })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const patch = dataPatch(contact.data, rows)
    if ('problems' in patch) return setProblems(patch.problems)
    setProblems({})
    if (Object.keys(patch.data).length === 0) return toast({ title: 'Nothing changed', tone: 'info' })
    // Saved, the page shows the contact as the server answered it, and this form starts again from it (its key is the contact's updatedAt).
    saving.mutate({ data: patch.data })
  }
  const change = (next: DataRow) => setRows((all) => all.map((r) => (r.id === next.id ? next : r)))
  return (
    <Card title="Data" description="Typed keys and values, as segments and templates read them.">
      <Form onSubmit={submit} className="form data-editor" validationBehavior="aria">
        <FormErrors error={saving.error} fields={[]} />
        {rows.length === 0 ? (
          <p className="muted">No data yet.</p>
        ) : (
          <ul className="data-rows" aria-label="Data keys">
            {rows.map((row) => (
              <Row key={row.id} row={row} problem={problems[row.id]} onChange={change} onRemove={() => setRows((all) => all.filter((r) => r.id !== row.id))} />
            ))}
          </ul>
        )}
        <div className="form-actions">
          <Button className="button" onPress={() => setRows((all) => [...all, newRow()])}>
            Add a key
          </Button>
          <SubmitButton pending={saving.isPending}>Save data</SubmitButton>
        </div>
      </Form>
    </Card>
  )
}

/** The data as it is, for a role that may not change it. */
export function DataView({ contact }: { contact: Contact }) {
  const rows = rowsOf(contact.data)
  return (
    <Card title="Data">
      {rows.length === 0 ? (
        <p className="muted">No data.</p>
      ) : (
        <dl className="facts">
          {rows.map((row) => (
            <Fragment key={row.id}>
              <dt>{row.key}</dt>
              <dd className="wrap-anywhere">
                {row.type === 'null' ? <span className="muted">null</span> : row.text} <span className="muted small">({TYPE_NAMES[row.type]})</span>
              </dd>
            </Fragment>
          ))}
        </dl>
      )}
    </Card>
  )
}
