import type { ReactNode } from 'react'
import { Button, Dialog, DialogTrigger, Heading, Popover } from 'react-aria-components'

interface FilterBarProps {
  /** The search field (a SearchField), first and widest. */
  search?: ReactNode
  /** The filters now on, as chips that each remove their filter. */
  chips?: Array<{ id: string; label: string; onRemove: () => void }>
  /** The form of every filter, in a popover opened by the Filters button. */
  filters?: ReactNode
  /** The Filters button's name. */
  filtersLabel?: string
  /** Things at the end of the bar (a count, an export). */
  end?: ReactNode
}

/**
 * One compact line above a list: a search field, the filters on as removable chips, and the rest
 * of the filters in a popover, so the list starts right under it (never a form pushing it down).
 */
export function FilterBar({ search, chips = [], filters, filtersLabel = 'Filters', end }: FilterBarProps) {
  return (
    <div className="filter-bar" role="group" aria-label="Filters">
      {search && <div className="filter-bar-search">{search}</div>}
      {filters && (
        <DialogTrigger>
          <Button className="button button-small filter-bar-button">
            {filtersLabel}
            {chips.length > 0 && <span className="filter-count">{chips.length}</span>}
          </Button>
          <Popover className="popover" placement="bottom start">
            <Dialog className="popover-dialog" aria-label={filtersLabel}>
              <Heading slot="title" className="visually-hidden">
                {filtersLabel}
              </Heading>
              {filters}
            </Dialog>
          </Popover>
        </DialogTrigger>
      )}
      {chips.length > 0 && (
        <ul className="filter-chips" aria-label="Filters on">
          {chips.map((chip) => (
            <li key={chip.id} className="filter-chip">
              <span>{chip.label}</span>
              <Button className="filter-chip-remove" aria-label={`Remove filter ${chip.label}`} onPress={chip.onRemove}>
                ×
              </Button>
            </li>
          ))}
        </ul>
      )}
      {end && <div className="filter-bar-end">{end}</div>}
    </div>
  )
}
