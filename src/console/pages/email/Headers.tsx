import { useQuery } from '@tanstack/react-query'
import { useApi } from '../../api/context.tsx'
import { emailsApi } from '../../api/emails.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { ErrorState, Loading } from '../../components/States.tsx'
import { DataTable } from '../../components/Table.tsx'
import { parseHeaders, type HeaderLine } from '../../lib/message-headers.ts'

/** The message's header fields as its recipients got them (from the raw message), in their order. */
export function Headers({ emailId, signed }: { emailId: string; signed: boolean }) {
  const { api } = useApi()
  const raw = useQuery({ queryKey: useProjectKey('email', emailId, 'raw', signed), queryFn: () => emailsApi(api).rawText(emailId) })
  if (raw.error) return <ErrorState error={raw.error} retry={() => raw.refetch()} />
  if (raw.data === undefined) return <Loading label="Loading the headers" />
  const rows = parseHeaders(raw.data).map((line, index) => ({ ...line, index }))
  return (
    <section aria-label="Headers">
      {!signed && <p className="field-hint">Not signed yet: the DKIM-Signature is added at the first delivery attempt.</p>}
      <div className="header-table">
        <DataTable<HeaderLine & { index: number }>
          caption="Message headers"
          columns={[
            { header: 'Name', cell: (h) => <span className="header-name">{h.name || '(no name)'}</span> },
            { header: 'Value', cell: (h) => <code className="header-value">{h.value}</code> },
          ]}
          rows={rows}
          rowKey={(h) => String(h.index)}
        />
      </div>
    </section>
  )
}
