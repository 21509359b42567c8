import { useQuery } from '@tanstack/react-query'
import { useContext, useState, type FormEvent } from 'react'
import { Button, Form, OverlayTriggerStateContext } from 'react-aria-components'
import { useApi } from '../../api/context.tsx'
import { contactsApi } from '../../api/contacts.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { Field } from '../../components/Field.tsx'
import { DATA_OPERATORS, hasFilters, OPERATOR_WORDS, VALUELESS, type ContactFilters, type DataOperator } from '../../lib/contact-filters.ts'

/** A native select with its visible label (every browser and screen reader knows it). */
function Select({ label, name, value, options, onChange }: { label: string; name: string; value: string; options: { value: string; label: string }[]; onChange?: (value: string) => void }) {
  const id = `contact-filter-${name}`
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <select id={id} name={name} className="input" defaultValue={value} onChange={(event) => onChange?.(event.target.value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The project's segments to filter by, read when the form opens (or a segment filter is on). */
export function useSegments(enabled = true) {
  const { api } = useApi()
  return useQuery({ queryKey: useProjectKey('segments', 'names'), queryFn: contactsApi(api).segments, staleTime: 30_000, enabled })
}

/**
 * The filters of the popover: the subscription, one data field with its operator and value, and a
 * segment. Applying them is a new address (the search and the order are kept).
 */
export function ContactFilterForm({ filters, onApply }: { filters: ContactFilters; onApply: (filters: ContactFilters) => void }) {
  const segments = useSegments()
  // The filter bar's popover, closed once the filters are applied.
  const popover = useContext(OverlayTriggerStateContext)
  const [op, setOp] = useState<DataOperator>(filters.op ?? 'equals')
  const [problem, setProblem] = useState<string>()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const values = new FormData(event.currentTarget)
    const text = (name: string) => String(values.get(name) ?? '').trim() || undefined
    const key = text('key')
    const value = text('value')
    if (key && !VALUELESS.has(op) && value === undefined) return setProblem('Give a value to compare the field with, or pick “is set”.')
    setProblem(undefined)
    popover?.close()
    onApply({
      search: filters.search,
      sort: filters.sort,
      dir: filters.dir,
      subscribed: text('subscribed') as ContactFilters['subscribed'],
      ...(key && { key, op, ...(!VALUELESS.has(op) && { value }) }),
      segment: text('segment'),
    })
  }
  const segmentOptions = (segments.data ?? []).map((segment) => ({ value: segment.id, label: segment.name }))
  if (filters.segment && !segmentOptions.some((s) => s.value === filters.segment)) segmentOptions.push({ value: filters.segment, label: segments.isPending ? 'Loading segments…' : `Segment ${filters.segment}` })
  return (
    <Form onSubmit={submit} className="form contact-filters" validationBehavior="aria">
      <Select
        label="Subscription"
        name="subscribed"
        value={filters.subscribed ?? ''}
        options={[
          { value: '', label: 'Any' },
          { value: 'true', label: 'Subscribed' },
          { value: 'false', label: 'Unsubscribed' },
        ]}
      />
      <fieldset className="contact-filter-data">
        <legend className="field-label">Data field</legend>
        <Field label="Key" name="key" defaultValue={filters.key} maxLength={200} placeholder="plan" />
        <Select label="Operator" name="op" value={op} options={DATA_OPERATORS.map((o) => ({ value: o, label: OPERATOR_WORDS[o] }))} onChange={(value) => setOp(value as DataOperator)} />
        {!VALUELESS.has(op) && <Field label="Value" name="value" defaultValue={filters.value} maxLength={1000} placeholder="pro" error={problem} />}
      </fieldset>
      <Select label="Segment" name="segment" value={filters.segment ?? ''} options={[{ value: '', label: 'Any' }, ...segmentOptions]} />
      <div className="filter-actions">
        <Button type="submit" className="button button-primary">
          Apply filters
        </Button>
        {hasFilters({ ...filters, search: undefined }) && (
          <Button
            className="button"
            onPress={() => {
              popover?.close()
              onApply({ search: filters.search, sort: filters.sort, dir: filters.dir })
            }}
          >
            Clear filters
          </Button>
        )}
      </div>
    </Form>
  )
}
