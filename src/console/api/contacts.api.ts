import { bulkFilter, listQuery, type ContactFilters } from '../lib/contact-filters.ts'
import { fromCursorList, type Page } from '../lib/cursor-pager.ts'
import { withQuery, type ApiClient } from './api-client.ts'
import type { Answer, Item, Schema } from './api-types.ts'

/** The contacts table (src/http/routes/contacts.routes.ts): pages by cursor, bulk actions, the export. */

export type Contact = Schema<'Contact'>
export type ContactPage = Answer<'/contacts', 'get'>
export type BulkResult = Schema<'ContactBulkResult'>
export type SegmentSummary = Item<Answer<'/segments', 'get'>>
export type ContactBook = Item<Answer<'/api/v1/contactBooks', 'get'>>

export type BulkAction = 'addToBook' | 'removeFromBook' | 'unsubscribe' | 'delete'

/** Which contacts a bulk action is about: those ticked, or every one the filters match. */
export type Selection = { ids: string[] } | { filters: ContactFilters }

const bodyOf = (selection: Selection) => ('ids' in selection ? { ids: selection.ids } : { filter: bulkFilter(selection.filters) })

export const contactsApi = (api: ApiClient) => ({
  /** One page in the filters' order, by the cursor of the page before; the first page has the total. */
  page: (filters: ContactFilters) => async (cursor: string | null, size: number): Promise<Page<Contact>> => {
    const answer = await api.get<ContactPage>('/contacts', { ...listQuery(filters), sort: filters.sort, dir: filters.dir, limit: size, cursor })
    return fromCursorList(answer.contacts, answer)
  },
  segments: () => api.get<SegmentSummary[]>('/segments'),
  books: () => api.get<ContactBook[]>('/api/v1/contactBooks'),
  bulk: (action: BulkAction, selection: Selection, bookId?: string) =>
    action === 'delete'
      ? api.post<BulkResult>('/contacts/bulk/delete', bodyOf(selection))
      : api.post<BulkResult>('/contacts/bulk', { action, ...(bookId && { bookId }), ...bodyOf(selection) }),
})

/**
 * The address of the filters' CSV, for a plain download link: the browser streams it to a file as
 * the server writes it. A link sends no X-Project-Id, so the project is in the query.
 */
export const exportHref = (projectId: number, filters: ContactFilters) => withQuery('/contacts/export', { ...listQuery(filters), projectId })
