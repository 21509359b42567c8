import { Link } from 'wouter'
import { useApi } from '../../../api/context.tsx'
import { contactApi, type ContactEmail } from '../../../api/contact.api.ts'
import { useProjectKey } from '../../../app/project.tsx'
import { StatusBadge } from '../../../components/EmailStatus.tsx'
import { ServerPaged } from '../../../components/ServerPaged.tsx'
import { Empty } from '../../../components/States.tsx'
import { DataTable, type Column } from '../../../components/Table.tsx'
import { Time } from '../../../components/Time.tsx'
import { fromNumberedList } from '../../../lib/cursor-pager.ts'

const columns: Column<ContactEmail>[] = [
  { header: 'Subject', cell: (e) => <Link href={`/emails/${e.id}`}>{e.subject || '(no subject)'}</Link> },
  { header: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
  { header: 'From', cell: (e) => <span className="wrap-anywhere">{e.from}</span> },
  { header: 'Sent', cell: (e) => <Time value={e.createdAt} /> },
]

/** The emails sent to the contact, newest first, each with its latest status and a link to it. */
export function ContactEmails({ id }: { id: string }) {
  const { api } = useApi()
  return (
    <ServerPaged
      label="Emails"
      queryKey={useProjectKey('contact', id, 'emails')}
      fetchPage={async (cursor, size) => {
        const { data, count } = await contactApi(api).emails(id, cursor === null ? 1 : Number(cursor), size)
        return fromNumberedList(data, count, cursor, size)
      }}
      empty={<Empty title="No emails yet">Emails sent to this contact, by a campaign, a workflow or the API, appear here.</Empty>}
    >
      {(emails) => <DataTable caption="Emails sent to this contact" captionHidden columns={columns} rows={emails} rowKey={(e) => e.id} />}
    </ServerPaged>
  )
}
