import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, Form } from 'react-aria-components'
import { Link, useLocation, useParams } from 'wouter'
import { useApi } from '../api/context.tsx'
import { domainsApi, type Domain } from '../api/domains.api.ts'
import { useProject, useProjectKey } from '../app/project.tsx'
import { Field } from '../components/Field.tsx'
import { fieldError, FormErrors } from '../components/FormErrors.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { Empty, ErrorState, Loading } from '../components/States.tsx'
import { DataTable, type Column } from '../components/Table.tsx'
import { Time } from '../components/Time.tsx'
import { domainStatus } from '../lib/domains-view.ts'
import { DomainPage, MANAGERS, StatusBadge } from './Domain.tsx'
import NotFound from './NotFound.tsx'
import { useSubmitOnce } from '../components/SubmitButton.tsx'
import { Card } from '../components/Card.tsx'

/** The sending region every server has (src/config/config-schema.ts DEFAULT_REGION); an operator may add others. */
const DEFAULT_REGION = 'us-east-1'

/** Step 1 of adding a domain: its name (and region). Step 2 is the domain's own page, with the records to publish. */
function AddDomain({ onCancel }: { onCancel?: () => void }) {
  const { api } = useApi()
  const queries = useQueryClient()
  const listKey = useProjectKey('domains')
  const [, navigate] = useLocation()
  const add = useMutation({
    mutationFn: domainsApi(api).add,
    onSuccess: (domain) => {
      queries.setQueryData([...listKey, domain.id], domain)
      void queries.invalidateQueries({ queryKey: listKey, exact: true })
      navigate(`/domains/${domain.id}`)
    },
  })
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const values = new FormData(event.currentTarget)
    once(() => add.mutateAsync({ name: String(values.get('name') ?? '').trim(), region: String(values.get('region') ?? '').trim() }))
  }
  return (
    <Card title="Add a domain">
      <p className="muted">Step 1 of 2: name the domain you send from. Next you see the DNS records to publish there.</p>
      <Form onSubmit={submit} className="form" validationBehavior="aria">
        <FormErrors error={add.error} fields={['name', 'region']} />
        <Field
          label="Domain name"
          name="name"
          isRequired
          autoFocus={onCancel !== undefined}
          placeholder="mail.example.com"
          description="A domain or subdomain you control. A subdomain (mail.example.com) keeps this mail apart from your other mail."
          error={fieldError(add.error, 'name')}
        />
        <Field label="Region" name="region" isRequired defaultValue={DEFAULT_REGION} description={`The sending pool: ${DEFAULT_REGION}, unless the operator configured others.`} error={fieldError(add.error, 'region')} />
        <div className="domain-form-actions">
          <Button type="submit" className="button button-primary" isPending={add.isPending}>
            {add.isPending ? 'Making its keys…' : 'Add domain'}
          </Button>
          {onCancel && (
            <Button className="button" onPress={onCancel}>
              Cancel
            </Button>
          )}
        </div>
      </Form>
    </Card>
  )
}

const tracking = (d: Domain) => [d.openTracking && 'Opens', d.clickTracking && 'Clicks'].filter(Boolean).join(', ') || 'Off'

function DomainList() {
  const { api } = useApi()
  const { project } = useProject()
  const queryKey = useProjectKey('domains')
  const domains = useQuery({ queryKey, queryFn: domainsApi(api).list })
  const mayManage = MANAGERS.includes(project.role)
  // The form shows by itself while there is no domain; above a list, the button opens it.
  const [adding, setAdding] = useState(false)
  const empty = domains.data?.length === 0
  const columns: Column<Domain>[] = [
    {
      header: 'Domain',
      cell: (d) => (
        <Link href={`/domains/${d.id}`} className="domain-name">
          {d.name}
        </Link>
      ),
    },
    { header: 'Status', cell: (d) => <StatusBadge verdict={domainStatus(d.status)} /> },
    { header: 'Region', cell: (d) => d.region },
    { header: 'Tracking', cell: tracking },
    { header: 'Last checked', cell: (d) => <Time value={d.lastCheckedTime} /> },
  ]
  return (
    <>
      <PageHeader
        title="Domains"
        description="The domains this project sends from. Each publishes a few DNS records (DKIM, SPF, DMARC); only a verified domain may send."
        actions={
          mayManage &&
          domains.data &&
          !empty &&
          !adding && (
            <Button className="button button-primary" onPress={() => setAdding(true)}>
              Add a domain
            </Button>
          )
        }
      />
      {mayManage ? (adding || empty) && <AddDomain onCancel={empty ? undefined : () => setAdding(false)} /> : <p className="muted">Your role ({project.role}) can see the domains and their records; an owner or admin adds, verifies and removes them.</p>}
      {domains.error ? (
        <ErrorState error={domains.error} retry={() => domains.refetch()} />
      ) : !domains.data ? (
        <Loading label="Loading the domains" />
      ) : domains.data.length === 0 ? (
        <Empty title="This project has no sending domain yet.">{mayManage && <p>Add one above: you get the DNS records to publish, and can verify them here.</p>}</Empty>
      ) : (
        <DataTable caption="Sending domains" columns={columns} rows={domains.data} rowKey={(d) => String(d.id)} />
      )}
    </>
  )
}

/** /domains: the list and the add wizard; /domains/12: that domain's records, checks, tracking and removal. */
export default function Domains() {
  const rest = useParams<{ '*'?: string }>()['*'] ?? ''
  if (rest === '') return <DomainList />
  if (/^[1-9]\d{0,15}$/.test(rest)) return <DomainPage id={Number(rest)} />
  return <NotFound />
}
