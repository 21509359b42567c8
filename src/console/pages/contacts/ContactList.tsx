import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { Button, Input, Label, SearchField } from 'react-aria-components'
import { Link, useLocation, useSearch } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { contactsApi, exportHref, type Contact, type Selection } from '../../api/contacts.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { Badge } from '../../components/Badge.tsx'
import { FilterBar } from '../../components/FilterBar.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { Empty, ErrorState } from '../../components/States.tsx'
import { DataTable, type Column, type SortOrder } from '../../components/Table.tsx'
import { Time } from '../../components/Time.tsx'
import { filterChips, filtersFromSearch, hasFilters, searchOf, type ContactFilters } from '../../lib/contact-filters.ts'
import { currentCursor, firstPage, nextPage, pageRange, previousPage } from '../../lib/cursor-pager.ts'
import { useDebounced } from '../../lib/debounce.ts'
import { BulkActions } from './BulkActions.tsx'
import { ContactFilterForm, useSegments } from './ContactFilterForm.tsx'

const PAGE_SIZE = 50

/** The roles that may change contacts, and those that may delete them in bulk (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
const mayChange = (role: string) => role === 'owner' || role === 'admin' || role === 'member'
const mayDeleteInBulk = (role: string) => role === 'owner' || role === 'admin'

/** A few of the contact's data, as key: value, for a glance (its page has all). */
function DataGlance({ data }: { data: Contact['data'] }) {
  const entries = Object.entries(data)
  if (entries.length === 0) return <span className="muted">—</span>
  const text = entries.map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join(', ')
  return (
    <span className="truncate contact-data" title={text}>
      {text}
    </span>
  )
}

const COLUMNS: Column<Contact>[] = [
  {
    header: 'Email',
    sortKey: 'email',
    cell: (c) => (
      <Link href={`/contacts/${encodeURIComponent(c.id)}`} className="truncate" title={c.email}>
        {c.email}
      </Link>
    ),
  },
  { header: 'Subscription', cell: (c) => (c.subscribed ? <Badge tone="ok">Subscribed</Badge> : <Badge>Unsubscribed</Badge>) },
  { header: 'Data', cell: (c) => <DataGlance data={c.data} />, priority: 'low' },
  { header: 'Created', sortKey: 'createdAt', cell: (c) => <Time value={c.createdAt} /> },
]

const toOrder = (filters: ContactFilters): SortOrder => ({ key: filters.sort ?? 'createdAt', direction: (filters.dir ?? 'desc') === 'asc' ? 'ascending' : 'descending' })

/** The search field: typed here, put in the address once the typing stops. */
function Search({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [typed, setTyped] = useState(value)
  const settled = useDebounced(typed.trim())
  useEffect(() => {
    if (settled !== value) onChange(settled)
  }, [settled])
  // A search changed elsewhere (Back, a link) shows in the field.
  useEffect(() => {
    if (value !== typed.trim()) setTyped(value)
  }, [value])
  return (
    <SearchField className="field search" value={typed} onChange={setTyped}>
      <Label className="visually-hidden">Search by email</Label>
      <div className="search-row">
        <Input className="input" placeholder="Search by email, e.g. @example.com" />
        <Button className="button search-clear">Clear</Button>
      </div>
    </SearchField>
  )
}

/** What is chosen for a bulk action: rows ticked on the pages seen, or every contact the filters match. */
type Chosen = { kind: 'rows'; ids: Set<string> } | { kind: 'all' }

/**
 * One filtered list, paged by cursor: a new filter or order is a new list (its key), which starts
 * again at its first page with nothing chosen. The first page's total is kept for the pages after.
 */
function ContactTable({ filters, onSort, version, onChanged }: { filters: ContactFilters; onSort: (order: SortOrder) => void; version: number; onChanged: () => void }) {
  const { api } = useApi()
  const { role } = useProject().project
  const [pager, setPager] = useState(firstPage)
  const [total, setTotal] = useState<number>()
  const [chosen, setChosen] = useState<Chosen>({ kind: 'rows', ids: new Set() })
  const cursor = currentCursor(pager)
  const page = useQuery({
    queryKey: [...useProjectKey('contacts', searchOf(filters), version), 'page', cursor],
    queryFn: () => contactsApi(api).page(filters)(cursor, PAGE_SIZE),
    placeholderData: keepPreviousData,
  })
  useEffect(() => {
    if (page.data?.total !== undefined) setTotal(page.data.total)
  }, [page.data?.total])
  if (page.error && !page.data) return <ErrorState error={page.error} retry={() => page.refetch()} />
  const rows = page.data?.items ?? []
  const next = page.data?.next ?? null
  const filtered = hasFilters(filters)
  if (page.data && rows.length === 0 && pager.index === 0 && !filtered) {
    return (
      <Empty title="No contacts yet">
        <p>
          Import a CSV file, or add contacts from your application with <code>POST /contacts</code> (or <code>POST /v1/track</code> as events come).
        </p>
        {mayChange(role) && (
          <Link href="/contacts/import" className="button button-primary">
            Import contacts
          </Link>
        )}
      </Empty>
    )
  }
  const bulk = mayChange(role)
  const selection: Selection = chosen.kind === 'all' ? { filters } : { ids: [...chosen.ids] }
  const count = chosen.kind === 'all' ? (total ?? 0) : chosen.ids.size
  const what = chosen.kind === 'all' ? `all ${count.toLocaleString()} ${filtered ? 'matching contacts' : 'contacts'}` : `${count.toLocaleString()} ${count === 1 ? 'contact' : 'contacts'}`
  const done = () => {
    setChosen({ kind: 'rows', ids: new Set() })
    onChanged()
  }
  return (
    <div className="paged contact-table" aria-busy={page.isFetching}>
      {bulk && count > 0 && (
        <div className="bulk-bar" role="region" aria-label="Selection">
          <span className="bulk-count">{chosen.kind === 'all' ? `All ${count.toLocaleString()} ${filtered ? 'matching' : ''} selected` : `${count.toLocaleString()} selected`}</span>
          {/* Offered once a row is ticked, not only the whole page: a phone shows no header row to tick them all. */}
          {chosen.kind === 'rows' && total !== undefined && total > chosen.ids.size && (
            <Button className="button button-small button-ghost" onPress={() => setChosen({ kind: 'all' })}>
              Select all {total.toLocaleString()} {filtered ? 'matching the filters' : 'contacts'}
            </Button>
          )}
          <Button className="button button-small button-ghost" onPress={() => setChosen({ kind: 'rows', ids: new Set() })}>
            Clear selection
          </Button>
          <BulkActions selection={selection} what={what} mayDelete={mayDeleteInBulk(role)} onDone={done} />
        </div>
      )}
      <DataTable
        caption={filtered ? 'Contacts matching the filters' : 'Contacts'}
        captionHidden
        columns={COLUMNS}
        rows={rows}
        rowKey={(c) => c.id}
        loading={!page.data}
        sort={toOrder(filters)}
        onSort={onSort}
        selection={
          bulk
            ? {
                selected: chosen.kind === 'all' ? new Set(rows.map((r) => r.id)) : chosen.ids,
                onChange: (ids) => setChosen({ kind: 'rows', ids }),
                rowLabel: (c) => `Select ${c.email}`,
              }
            : undefined
        }
        empty={
          <Empty title="No contact matches these filters.">
            <p>Try fewer filters, or another search.</p>
          </Empty>
        }
      />
      {(pager.index > 0 || next !== null) && (
        <nav className="pager" aria-label="Contacts pages">
          <span className="muted">{pageRange(pager.index, PAGE_SIZE, rows.length, total)}</span>
          <Button className="button" isDisabled={pager.index === 0 || page.isFetching} onPress={() => setPager(previousPage)}>
            Previous page
          </Button>
          <Button className="button" isDisabled={next === null || page.isFetching} onPress={() => setPager((p) => nextPage(p, next))}>
            Next page
          </Button>
        </nav>
      )}
      {pager.index === 0 && next === null && total !== undefined && rows.length > 0 && <p className="muted pager-total">{pageRange(0, PAGE_SIZE, rows.length, total)}</p>}
      {page.error && <ErrorState error={page.error} retry={() => page.refetch()} />}
    </div>
  )
}

/** /contacts: the project's contacts, searched, filtered and sorted by the address, with bulk actions and the export. */
export default function ContactList() {
  const search = useSearch()
  const [, navigate] = useLocation()
  const { project } = useProject()
  const queries = useQueryClient()
  const contactsKey = useProjectKey('contacts')
  const [version, setVersion] = useState(0)
  const filters = filtersFromSearch(search)
  const segments = useSegments(filters.segment !== undefined)
  const apply = (chosen: ContactFilters) => {
    const next = searchOf(chosen)
    navigate(next ? `/contacts?${next}` : '/contacts')
  }
  const segmentName = (id: string) => segments.data?.find((s) => s.id === id)?.name ?? 'a segment'
  const chips = filterChips(filters, segmentName).map((chip) => ({ id: chip.id, label: chip.label, onRemove: () => apply(chip.without) }))
  const onSort = (order: SortOrder) => apply({ ...filters, sort: order.key as ContactFilters['sort'], dir: order.direction === 'ascending' ? 'asc' : 'desc' })
  const changed = () => {
    setVersion((v) => v + 1)
    void queries.invalidateQueries({ queryKey: contactsKey })
  }
  return (
    <>
      <PageHeader
        title="Contacts"
        description="The people you send marketing mail to, with their data and subscription. Open one for its timeline, emails and segments."
        actions={
          <>
            <a className="button" href={exportHref(project.id, filters)} download>
              Export CSV
            </a>
            {mayChange(project.role) && (
              <Link href="/contacts/import" className="button button-primary">
                Import
              </Link>
            )}
          </>
        }
      />
      <FilterBar
        search={<Search value={filters.search ?? ''} onChange={(value) => apply({ ...filters, search: value || undefined })} />}
        chips={chips}
        filters={<ContactFilterForm key={`form ${searchOf(filters)}`} filters={filters} onApply={apply} />}
      />
      <ContactTable key={`${searchOf(filters)} ${version}`} filters={filters} onSort={onSort} version={version} onChanged={changed} />
    </>
  )
}
