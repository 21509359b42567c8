import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { segmentsApi, type Segment, type SegmentMembers } from '../../api/segments.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { Card } from '../../components/Card.tsx'
import { Field } from '../../components/Field.tsx'
import { FormErrors } from '../../components/FormErrors.tsx'
import { PagedTable } from '../../components/PagedTable.tsx'
import { Empty } from '../../components/States.tsx'
import type { Column } from '../../components/Table.tsx'
import { fromNumberedList } from '../../lib/cursor-pager.ts'
import { membersText } from '../../lib/segment-builder.ts'

type Member = SegmentMembers['contacts'][number]

/** The listed members of a STATIC segment: add by email (new addresses become contacts), remove one. */
export function StaticMembers({ segment, readOnly, onChanged }: { segment: Segment; readOnly: boolean; onChanged: (segment: Segment) => void }) {
  const { api } = useApi()
  const queries = useQueryClient()
  const queryKey = useProjectKey('segment-members', segment.id)
  const [emails, setEmails] = useState('')
  const changed = (next: Segment) => {
    onChanged(next)
    return queries.invalidateQueries({ queryKey })
  }
  const add = useMutation({ mutationFn: (list: string[]) => segmentsApi(api).addMembers(segment.id, list), onSuccess: (next) => changed(next).then(() => setEmails('')) })
  const remove = useMutation({ mutationFn: (id: string) => segmentsApi(api).removeMembers(segment.id, [id]), onSuccess: changed })
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const list = emails.split(/[\s,;]+/).filter(Boolean)
    if (list.length > 0) add.mutate(list)
  }
  const columns: Column<Member>[] = [
    { header: 'Email', cell: (c) => <Link href={`/contacts/${c.id}`}>{c.email}</Link> },
    { header: 'Subscribed', cell: (c) => (c.subscribed ? 'Yes' : 'No') },
  ]
  if (!readOnly) {
    columns.push({
      header: 'Actions',
      align: 'end',
      cell: (c) => (
        <Button className="button button-small button-ghost" aria-label={`Remove ${c.email}`} isPending={remove.isPending && remove.variables === c.id} onPress={() => remove.mutate(c.id)}>
          Remove
        </Button>
      ),
    })
  }
  return (
    <Card title="Members" description={`${membersText(segment.memberCount)}. A static segment holds the contacts listed here, whatever their data.`}>
      {!readOnly && (
        <Form onSubmit={submit} className="builder-add-members" validationBehavior="aria">
          <FormErrors error={add.error ?? remove.error} fields={[]} />
          <Field label="Add by email" name="emails" value={emails} onChange={setEmails} placeholder="ada@example.com, grace@example.com" description="One or more addresses; an address that is no contact yet becomes one." />
          <Button type="submit" className="button" isPending={add.isPending}>
            Add members
          </Button>
        </Form>
      )}
      <PagedTable
        caption="Contacts listed"
        queryKey={queryKey}
        fetchPage={async (cursor, size) => {
          const page = await segmentsApi(api).members(segment.id, cursor === null ? 1 : Number(cursor), size)
          return fromNumberedList(page.contacts, page.total, cursor, size)
        }}
        columns={columns}
        rowKey={(c) => c.id}
        empty={<Empty title="No member listed yet." />}
      />
    </Card>
  )
}
