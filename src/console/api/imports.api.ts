import type { ApiClient } from './api-client.ts'
import type { Schema } from './api-types.ts'

/** Contact imports from CSV (src/http/routes/contact-imports.routes.ts): upload, follow, report. */

export type ContactImport = Schema<'ContactImport'>

/** What a CSV column becomes: the contact's email or subscribed, a data key, or nothing. */
export type ColumnTarget = 'email' | 'subscribed' | 'ignore' | `data.${string}`

const base = '/contacts/import'

export const importsApi = (api: ApiClient) => ({
  /** Sends the file (as the form field "file") with its column mapping; the import then runs on the server. */
  start: (file: File, mapping: Record<string, ColumnTarget>) => {
    const form = new FormData()
    form.set('mapping', JSON.stringify(mapping))
    form.set('file', file)
    return api.upload<ContactImport>(base, form)
  },
  get: (id: string) => api.get<ContactImport>(`${base}/${encodeURIComponent(id)}`),
  recent: (limit = 10) => api.get<{ imports: ContactImport[] }>(base, { limit }),
  /** The refused rows as CSV: line,reason. */
  report: async (id: string) => (await api.blob(`${base}/${encodeURIComponent(id)}/errors.csv`)).text(),
})
