import { useState, type ReactNode } from 'react'
import { Button, Checkbox } from 'react-aria-components'
import { nextOrder, sortRows, type SortOrder, type SortValue } from '../lib/table-sort.ts'

export type { SortOrder } from '../lib/table-sort.ts'

export interface Column<T> {
  header: string
  cell: (row: T) => ReactNode
  /**
   * 'end' for actions (on a phone, at the card's end without a label); 'numeric' for numbers:
   * at the end on a wide screen, labelled like any cell on a phone.
   */
  align?: 'end' | 'numeric'
  /** The API's name for ordering by this column, when it can: with `onSort`, the header becomes a sort button. */
  sortKey?: string
  /** What the browser sorts the rows shown by (without `onSort`): the header becomes a sort button. */
  sortValue?: (row: T) => SortValue
  /** 'low': left out of the stacked rows on a phone (the row's page has it). */
  priority?: 'low'
}

interface DataTableProps<T> {
  caption: string
  columns: Column<T>[]
  rows: T[]
  rowKey: (row: T) => string
  /** Buttons at a row's end (Edit, Revoke): a last column with no header text. */
  rowActions?: (row: T) => ReactNode
  /** The order shown and how to change it, when the API sorts (the table only asks, by the columns' sortKey). */
  sort?: SortOrder
  onSort?: (order: SortOrder) => void
  /** Without onSort: the order the rows are first shown in, by a column's header (its sortValue). */
  defaultSort?: SortOrder
  /** Rows still coming: skeleton rows instead of a spinner, so the page does not jump. */
  loading?: boolean
  /** What an empty table says, in one row across it. */
  empty?: ReactNode
  /** Hide the caption visually (a card's heading already says it). */
  captionHidden?: boolean
  /** Rows that can be ticked (by rowKey): a first column of checkboxes, the header's for every row shown. */
  selection?: RowSelection<T>
}

export interface RowSelection<T> {
  selected: ReadonlySet<string>
  onChange: (selected: Set<string>) => void
  /** The accessible name of a row's checkbox ("Select ada@example.com"). */
  rowLabel: (row: T) => string
}

/** A checkbox drawn as the console's others are; its name is said by aria-label. */
function Tick({ label, isSelected, isIndeterminate, onChange }: { label: string; isSelected: boolean; isIndeterminate?: boolean; onChange: (on: boolean) => void }) {
  return (
    <Checkbox className="checkbox" aria-label={label} isSelected={isSelected} isIndeterminate={isIndeterminate} onChange={onChange}>
      <span className="checkbox-box" aria-hidden="true">
        <svg viewBox="0 0 18 18">{isIndeterminate ? <polyline points="4 9 14 9" /> : <polyline points="2 9.5 7 14 16 4" />}</svg>
      </span>
    </Checkbox>
  )
}

function SelectAll<T>({ rows, rowKey, selection }: { rows: T[]; rowKey: (row: T) => string; selection: RowSelection<T> }) {
  const keys = rows.map(rowKey)
  const ticked = keys.filter((key) => selection.selected.has(key)).length
  const toggle = (on: boolean) => {
    const next = new Set(selection.selected)
    for (const key of keys) on ? next.add(key) : next.delete(key)
    selection.onChange(next)
  }
  return <Tick label="Select every row shown" isSelected={ticked > 0 && ticked === keys.length} isIndeterminate={ticked > 0 && ticked < keys.length} onChange={toggle} />
}

function SelectRow<T>({ row, rowKey, selection }: { row: T; rowKey: (row: T) => string; selection: RowSelection<T> }) {
  const key = rowKey(row)
  const toggle = (on: boolean) => {
    const next = new Set(selection.selected)
    on ? next.add(key) : next.delete(key)
    selection.onChange(next)
  }
  return <Tick label={selection.rowLabel(row)} isSelected={selection.selected.has(key)} onChange={toggle} />
}

/** A sortable column's header: a button that asks for the next order; the th's aria-sort says the current one. */
function SortHeader<T>({ column, current, onPress }: { column: Column<T>; current: SortOrder['direction'] | undefined; onPress: () => void }) {
  return (
    <Button className="sort-button" onPress={onPress}>
      {column.header}
      <span className="sort-mark" aria-hidden="true">
        {current === 'descending' ? '↓' : current === 'ascending' ? '↑' : '↕'}
      </span>
    </Button>
  )
}

/**
 * A dense table with its caption and a sticky header row: sortable columns (by the API, with
 * `onSort` and the columns' sortKey; else in the browser, the rows given sorted by the columns'
 * sortValue), row actions, skeleton rows while loading, and one row saying what an empty list means. On a phone
 * each row becomes a card of labelled cells (app.css), leaving out the low-priority columns.
 */
export function DataTable<T>({ caption, columns, rows, rowKey, rowActions, sort, onSort, defaultSort, loading, empty, captionHidden, selection }: DataTableProps<T>) {
  const [localSort, setLocalSort] = useState(defaultSort)
  const byServer = onSort !== undefined
  const order = byServer ? sort : localSort
  const keyOf = (column: Column<T>) => (byServer ? column.sortKey : column.sortValue ? column.header : undefined)
  const shown = byServer ? rows : sortRows(rows, columns.find((column) => keyOf(column) === localSort?.key)?.sortValue, localSort)
  const sortBy = (key: string) => (byServer ? onSort(nextOrder(order, key)) : setLocalSort(nextOrder(order, key)))
  const width = columns.length + (rowActions ? 1 : 0) + (selection ? 1 : 0)
  const className = (column: Column<T>) =>
    [column.align && 'end', column.align === 'numeric' && 'numeric', column.priority === 'low' && 'low-priority'].filter(Boolean).join(' ') || undefined
  return (
    <div className="table-wrap">
      <table className="table" aria-busy={loading || undefined}>
        <caption className={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
        <thead>
          <tr>
            {selection && (
              <th scope="col" className="select">
                <SelectAll rows={shown} rowKey={rowKey} selection={selection} />
              </th>
            )}
            {columns.map((column) => {
              const key = keyOf(column)
              const current = key !== undefined && order?.key === key ? order.direction : undefined
              return (
                <th key={column.header} scope="col" className={className(column)} aria-sort={current}>
                  {key !== undefined ? <SortHeader column={column} current={current} onPress={() => sortBy(key)} /> : column.header}
                </th>
              )
            })}
            {rowActions && (
              <th scope="col" className="end">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {loading &&
            rows.length === 0 &&
            [0, 1, 2].map((i) => (
              <tr key={`loading-${i}`} className="table-loading" aria-hidden="true">
                <td colSpan={width}>
                  <span className="skeleton" data-width={i} />
                </td>
              </tr>
            ))}
          {!loading && rows.length === 0 && empty !== undefined && (
            <tr className="table-empty">
              <td colSpan={width}>{empty}</td>
            </tr>
          )}
          {shown.map((row) => (
            <tr key={rowKey(row)} data-selected={selection?.selected.has(rowKey(row)) || undefined}>
              {selection && (
                <td className="select">
                  <SelectRow row={row} rowKey={rowKey} selection={selection} />
                </td>
              )}
              {columns.map((column) => (
                <td key={column.header} data-label={column.header} className={className(column)}>
                  {column.cell(row)}
                </td>
              ))}
              {rowActions && (
                <td className="end">
                  <div className="row-actions">{rowActions(row)}</div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
