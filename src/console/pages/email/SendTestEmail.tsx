import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Button, DialogTrigger, Form } from 'react-aria-components'
import { Link } from 'wouter'
import { ApiError } from '../../api/api-errors.ts'
import { useApi } from '../../api/context.tsx'
import { emailsApi } from '../../api/emails.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { useSession } from '../../app/session.tsx'
import { Dialog, DialogActions } from '../../components/Dialog.tsx'
import { Field } from '../../components/Field.tsx'
import { FormErrors } from '../../components/FormErrors.tsx'
import { Empty, ErrorState, Loading } from '../../components/States.tsx'
import { useSubmitOnce } from '../../components/SubmitButton.tsx'
import { toast } from '../../components/Toast.tsx'
import { DEFAULT_LOCAL_PART, domainOf, formFieldOf, sendBodyOf, TEST_SUBJECT, testBody, testEmailProblems, type TestEmailField, type TestEmailInput } from '../../lib/test-email.ts'

/** The roles that may send (src/core/accounts/roles.ts decides; this only hides what they would be refused). */
export const maySend = (role: string) => role === 'owner' || role === 'admin' || role === 'member'

/** The API's field errors, as the form's fields name them; the rest FormErrors shows above. */
function apiProblems(error: unknown): Partial<Record<TestEmailField, string>> {
  if (!(error instanceof ApiError)) return {}
  const found: Partial<Record<TestEmailField, string>> = {}
  for (const problem of error.fields) {
    const field = formFieldOf(problem.field)
    if (field && !found[field]) found[field] = problem.message
  }
  return found
}

/** The sender: in a sandbox any address; else a local part at one of the verified domains. */
function FromField({ sandbox, domains, fallbackDomain, error }: { sandbox: boolean; domains: string[]; fallbackDomain: string; error?: string }) {
  if (sandbox) {
    return <Field label="From" name="from" type="email" defaultValue={`${DEFAULT_LOCAL_PART}@${domains[0] ?? fallbackDomain}`} description="A sandbox sends from any address: no domain needed." error={error} />
  }
  return (
    <div className="from-row">
      <Field label="From" name="localPart" defaultValue={DEFAULT_LOCAL_PART} description="The part before the @" error={error} className="grow" />
      <span className="from-at" aria-hidden="true">
        @
      </span>
      <div className="field">
        <label htmlFor="test-from-domain" className="field-label">
          Domain
        </label>
        <select id="test-from-domain" name="domain" className="input" defaultValue={domains[0]}>
          {domains.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
    </div>
  )
}

function TestEmailForm({ close }: { close: () => void }) {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const account = useSession().data?.account
  const domains = useQuery({ queryKey: useProjectKey('domains', 'verified'), queryFn: emailsApi(api).verifiedDomains })
  const [problems, setProblems] = useState<Partial<Record<TestEmailField, string>>>({})
  const send = useMutation({
    mutationFn: (input: TestEmailInput) => emailsApi(api).send(sendBodyOf(input)),
    onSuccess: (_, input) => {
      // The log, the Overview's counts and checklist read the new email without a reload.
      queries.invalidateQueries({ queryKey: ['project', project.id] })
      toast({ title: 'Test email sent', description: `Queued to ${input.to}; its status moves in the log as it goes.`, tone: 'ok' })
      close()
    },
  })
  const once = useSubmitOnce()
  if (domains.error) return <ErrorState error={domains.error} retry={() => domains.refetch()} />
  if (!domains.data) return <Loading label="Loading the sending domains" />
  if (!project.sandbox && domains.data.length === 0) {
    return (
      <>
        <Empty title="No verified domain yet.">
          <p>
            Mail is sent from a domain whose DNS records are published: <Link href="/domains">add and verify one</Link> first.
          </p>
        </Empty>
        <div className="dialog-actions">
          <Button className="button" onPress={close}>
            Close
          </Button>
        </div>
      </>
    )
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const value = (name: string) => String(form.get(name) ?? '')
    const from = project.sandbox ? value('from') : `${value('localPart').trim()}@${value('domain')}`
    const input = { to: value('to'), from, subject: value('subject'), body: value('body') }
    const found = testEmailProblems(input)
    setProblems(found)
    if (Object.keys(found).length === 0) once(() => send.mutateAsync(input))
  }
  const shown = { ...apiProblems(send.error), ...problems }
  const errors = Object.keys(problems).length > 0 ? null : send.error
  return (
    <Form onSubmit={submit} className="form" validationBehavior="aria">
      <FormErrors error={errors} fields={['to', 'to[0]', 'from', 'subject', 'html', 'text']} />
      <Field label="To" name="to" type="email" defaultValue={account?.email ?? ''} error={shown.to} />
      <FromField sandbox={project.sandbox} domains={domains.data} fallbackDomain={domainOf(account?.email) ?? 'example.com'} error={shown.from} />
      <Field label="Subject" name="subject" defaultValue={TEST_SUBJECT} error={shown.subject} />
      <Field label="Message" name="body" rows={4} defaultValue={testBody(project.name)} error={shown.body} />
      <DialogActions close={close} submit="Send test email" pending={send.isPending} />
    </Form>
  )
}

/**
 * "Send test email": a dialog that sends one message as the signed-in person, to their own address
 * unless changed, from a verified domain (any address in a sandbox). Not shown to a role that may
 * not send.
 */
export function SendTestEmail({ primary = false, small = false }: { primary?: boolean; small?: boolean }) {
  const { project } = useProject()
  if (!maySend(project.role)) return null
  return (
    <DialogTrigger>
      <Button className={['button', primary && 'button-primary', small && 'button-small'].filter(Boolean).join(' ')}>Send test email</Button>
      <Dialog title="Send a test email" wide>{(close) => <TestEmailForm close={close} />}</Dialog>
    </DialogTrigger>
  )
}
