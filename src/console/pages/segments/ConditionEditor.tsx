import { useId, type ReactNode } from 'react'
import { Button } from 'react-aria-components'
import type { FieldProblem } from '../../api/api-errors.ts'
import { Segmented } from '../../components/Segmented.tsx'
import {
  ACTIVITIES,
  FIELD_CHOICES,
  filterPath,
  groupPath,
  nameLabel,
  newFilter,
  newGroup,
  newCondition,
  OPERATOR_WORDS,
  operatorsFor,
  problemsAt,
  removeAt,
  replaceAt,
  UNITS,
  valueKindOf,
  valueTypesOf,
  withChoice,
  withOperator,
  withValueType,
  type DraftCondition,
  type DraftFilter,
  type DraftGroup,
  type FieldChoice,
  type Operator,
  type Unit,
  type ValueType,
} from '../../lib/segment-builder.ts'

/** What every node of the editor shares: the segments a filter may name, the server's problems, and whether it may change. */
export interface EditorEnv {
  segments: readonly { id: string; name: string }[]
  problems: readonly FieldProblem[]
  readOnly: boolean
}

const MAX_DEPTH = 10

function Select<T extends string>({ label, value, options, onChange, disabled, invalid }: { label: string; value: T; options: readonly { id: T; label: string }[]; onChange: (value: T) => void; disabled: boolean; invalid?: boolean }) {
  const id = useId()
  return (
    <span className="builder-control">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <select id={id} className="input input-compact" value={value} disabled={disabled} aria-invalid={invalid || undefined} onChange={(event) => onChange(event.target.value as T)}>
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.label}
          </option>
        ))}
      </select>
    </span>
  )
}

function TextInput({ label, value, onChange, disabled, type = 'text', placeholder, invalid }: { label: string; value: string; onChange: (value: string) => void; disabled: boolean; type?: 'text' | 'number' | 'date'; placeholder?: string; invalid?: boolean }) {
  const id = useId()
  return (
    <span className="builder-control">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input id={id} className="input input-compact" type={type} step={type === 'number' ? 'any' : undefined} value={value} placeholder={placeholder} disabled={disabled} aria-invalid={invalid || undefined} onChange={(event) => onChange(event.target.value)} />
    </span>
  )
}

const TYPE_WORDS: Record<ValueType, string> = { text: 'Text', number: 'Number', boolean: 'True or false', date: 'Date' }

function FilterRow({ filter, onChange, onRemove, path, number, env }: { filter: DraftFilter; onChange: (filter: DraftFilter) => void; onRemove?: () => void; path: string; number: string; env: EditorEnv }) {
  const problems = problemsAt(env.problems, path)
  const on = (part: string) => env.problems.some((p) => p.field === `${path}.${part}`)
  const disabled = env.readOnly
  const kind = valueKindOf(filter)
  const types = valueTypesOf(filter)
  const nameOf = nameLabel(filter.choice)
  const errorId = useId()
  let name: ReactNode = null
  if (filter.choice === 'email.') {
    name = <Select label="Activity" value={filter.name} options={ACTIVITIES.map((a) => ({ id: a, label: a }))} onChange={(value) => onChange({ ...filter, name: value })} disabled={disabled} />
  } else if (filter.choice === 'segment') {
    const options = [{ id: '', label: 'Choose a segment' }, ...env.segments.map((s) => ({ id: s.id, label: s.name }))]
    if (filter.name && !env.segments.some((s) => s.id === filter.name)) options.push({ id: filter.name, label: filter.name })
    name = <Select label="Segment" value={filter.name} options={options} onChange={(value) => onChange({ ...filter, name: value })} disabled={disabled} invalid={on('field')} />
  } else if (nameOf) {
    name = <TextInput label={nameOf} value={filter.name} onChange={(value) => onChange({ ...filter, name: value })} disabled={disabled} placeholder={filter.choice === 'data' ? 'plan' : 'signup'} invalid={on('field')} />
  }
  let value: ReactNode = null
  if (kind !== 'none') {
    value =
      filter.valueType === 'boolean' ? (
        <Select label="Value" value={filter.value} options={[{ id: 'true', label: 'true' }, { id: 'false', label: 'false' }]} onChange={(v) => onChange({ ...filter, value: v })} disabled={disabled} invalid={on('value')} />
      ) : (
        <TextInput label={kind === 'span' ? 'How many' : 'Value'} value={filter.value} type={filter.valueType === 'number' ? 'number' : filter.valueType === 'date' ? 'date' : 'text'} onChange={(v) => onChange({ ...filter, value: v })} disabled={disabled} invalid={on('value')} />
      )
  }
  return (
    <div className="builder-filter" role="group" aria-label={`Filter ${number}`} aria-describedby={problems.length > 0 ? errorId : undefined}>
      <div className="builder-row">
        <Select label="Field" value={filter.choice} options={FIELD_CHOICES} onChange={(choice: FieldChoice) => onChange(withChoice(filter, choice))} disabled={disabled} invalid={on('field')} />
        {name}
        <Select label="Operator" value={filter.operator} options={operatorsFor(filter.choice).map((op) => ({ id: op, label: OPERATOR_WORDS[op] }))} onChange={(op: Operator) => onChange(withOperator(filter, op))} disabled={disabled} invalid={on('operator')} />
        {types.length > 1 && <Select label="Value type" value={filter.valueType} options={types.map((t) => ({ id: t, label: TYPE_WORDS[t] }))} onChange={(t: ValueType) => onChange(withValueType(filter, t))} disabled={disabled} />}
        {value}
        {kind === 'span' && <Select label="Unit" value={filter.unit} options={UNITS.map((u) => ({ id: u, label: u }))} onChange={(unit: Unit) => onChange({ ...filter, unit })} disabled={disabled} invalid={on('unit')} />}
        {kind === 'span' && filter.operator === 'olderThan' && <span className="muted">ago</span>}
        {onRemove && !disabled && (
          <Button className="button button-small button-ghost" aria-label={`Remove filter ${number}`} onPress={onRemove}>
            Remove
          </Button>
        )}
      </div>
      {problems.length > 0 && (
        <p id={errorId} className="field-error" role="alert">
          {problems.join(' ')}
        </p>
      )}
    </div>
  )
}

function GroupBox({ group, onChange, onRemove, path, number, depth, env }: { group: DraftGroup; onChange: (group: DraftGroup) => void; onRemove?: () => void; path: string; number: string; depth: number; env: EditorEnv }) {
  const problems = problemsAt(env.problems, path, ['filters'])
  const editable = !env.readOnly
  return (
    <section className="builder-group" aria-label={`Group ${number}`}>
      <header className="builder-group-head">
        <span className="builder-group-title">Group {number}</span>
        <span className="muted">all of these hold</span>
        {onRemove && editable && (
          <Button className="button button-small button-ghost" aria-label={`Remove group ${number}`} onPress={onRemove}>
            Remove group
          </Button>
        )}
      </header>
      <div className="builder-filters">
        {group.filters.map((filter, j) => (
          <FilterRow
            key={filter.key}
            filter={filter}
            path={filterPath(path, j)}
            number={`${number}.${j + 1}`}
            env={env}
            onChange={(next) => onChange({ ...group, filters: replaceAt(group.filters, j, next) })}
            onRemove={group.filters.length > 1 || group.nested ? () => onChange({ ...group, filters: removeAt(group.filters, j) }) : undefined}
          />
        ))}
      </div>
      {group.nested && (
        <div className="builder-nested">
          <ConditionEditor
            condition={group.nested}
            onChange={(nested) => onChange({ ...group, nested })}
            path={`${path}.conditions`}
            number={number}
            depth={depth + 1}
            env={env}
          />
          {editable && (
            <Button className="button button-small button-ghost" onPress={() => onChange({ ...group, nested: null, filters: group.filters.length > 0 ? group.filters : [newFilter()] })}>
              Remove nested condition
            </Button>
          )}
        </div>
      )}
      {problems.length > 0 && (
        <p className="field-error" role="alert">
          {problems.join(' ')}
        </p>
      )}
      {editable && (
        <div className="builder-actions">
          <Button className="button button-small" aria-label={`Add filter to group ${number}`} onPress={() => onChange({ ...group, filters: [...group.filters, newFilter()] })}>
            Add filter
          </Button>
          {!group.nested && depth < MAX_DEPTH && (
            <Button className="button button-small" aria-label={`Add nested condition to group ${number}`} onPress={() => onChange({ ...group, nested: newCondition() })}>
              Add nested condition
            </Button>
          )}
        </div>
      )}
    </section>
  )
}

/**
 * A condition: its groups, joined by AND (all hold) or OR (any holds), each group's filters all
 * holding, and a group's nested condition, drawn the same way inside it.
 */
export function ConditionEditor({ condition, onChange, path = 'condition', number = '', depth = 1, env }: { condition: DraftCondition; onChange: (condition: DraftCondition) => void; path?: string; number?: string; depth?: number; env: EditorEnv }) {
  const problems = problemsAt(env.problems, path, ['logic', 'groups'])
  const joiner = condition.logic === 'AND' ? 'and' : 'or'
  const prefix = number ? `${number}.` : ''
  return (
    <div className="builder-condition">
      <div className="builder-logic">
        <span>A contact is in when</span>
        {env.readOnly ? (
          <strong>{condition.logic === 'AND' ? 'all groups hold' : 'any group holds'}</strong>
        ) : (
          <Segmented
            label={number ? `Groups of group ${number} joined by` : 'Groups joined by'}
            value={condition.logic}
            options={[
              { id: 'AND', label: 'All groups (AND)' },
              { id: 'OR', label: 'Any group (OR)' },
            ]}
            onChange={(logic) => onChange({ ...condition, logic })}
          />
        )}
      </div>
      {condition.groups.map((group, i) => (
        <div key={group.key} className="builder-group-slot">
          {i > 0 && (
            <div className="builder-joiner" aria-hidden="true">
              {joiner}
            </div>
          )}
          <GroupBox
            group={group}
            path={groupPath(path, i)}
            number={`${prefix}${i + 1}`}
            depth={depth}
            env={env}
            onChange={(next) => onChange({ ...condition, groups: replaceAt(condition.groups, i, next) })}
            onRemove={condition.groups.length > 1 ? () => onChange({ ...condition, groups: removeAt(condition.groups, i) }) : undefined}
          />
        </div>
      ))}
      {problems.length > 0 && (
        <p className="field-error" role="alert">
          {problems.join(' ')}
        </p>
      )}
      {!env.readOnly && (
        <Button className="button button-small" aria-label={number ? `Add a group to group ${number}'s nested condition` : 'Add group'} onPress={() => onChange({ ...condition, groups: [...condition.groups, newGroup()] })}>
          Add group
        </Button>
      )}
    </div>
  )
}
