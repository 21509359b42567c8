import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Form } from 'react-aria-components'
import { useApi } from '../../api/context.tsx'
import { webhooksApi, type TestCall, type Webhook } from '../../api/webhooks.api.ts'
import { Card } from '../../components/Card.tsx'
import { CodeBlock } from '../../components/CodeBlock.tsx'
import { FormErrors } from '../../components/FormErrors.tsx'
import { SubmitButton, useSubmitOnce } from '../../components/SubmitButton.tsx'
import { prettyBody, testCallSummary, testEventTypes } from '../../lib/webhooks-view.ts'

/** Header lines as an HTTP message writes them. */
const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')

function Call({ call }: { call: TestCall }) {
  const response = call.response
  return (
    <div className="test-call">
      <section aria-label="Test request">
        <h3>Request</h3>
        <CodeBlock label="Test request headers" title={`${call.request.method} ${call.request.url}`} code={headerLines(call.request.headers)} />
        <CodeBlock label="Test request body" title="Body (JSON)" code={prettyBody(call.request.body)} />
      </section>
      <section aria-label="Test response">
        <h3>Response</h3>
        <dl className="facts">
          <dt>Outcome</dt>
          <dd>
            <span className={`badge badge-status badge-${call.ok ? 'ok' : 'bad'}`}>{call.ok ? 'Succeeded' : 'Failed'}</span>
          </dd>
          <dt>Status</dt>
          <dd>{response ? `HTTP ${response.status}` : 'No answer'}</dd>
          <dt>Time</dt>
          <dd>{call.durationMs.toLocaleString()} ms</dd>
          {call.error && !response && (
            <>
              <dt>Error</dt>
              <dd className="wrap-anywhere">{call.error}</dd>
            </>
          )}
        </dl>
        {response &&
          (response.body ? (
            <CodeBlock label="Test response body" title={response.truncated ? 'Body (its first kilobyte)' : 'Body'} code={prettyBody(response.body)} />
          ) : (
            <p className="muted">The answer had no body.</p>
          ))}
      </section>
    </div>
  )
}

/**
 * Sends a sample event of a type the webhook takes, signed as a real call, and shows the request and
 * the endpoint's answer. A test is no delivery: it is not logged, retried or counted (owners and admins).
 */
export function TestEvent({ webhook }: { webhook: Webhook }) {
  const { api } = useApi()
  const types = testEventTypes(webhook.events)
  const [type, setType] = useState(types[0] ?? '')
  const send = useMutation({ mutationFn: (chosen: string) => webhooksApi(api).test(webhook.id, chosen) })
  const once = useSubmitOnce()
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => send.mutateAsync(type))
  }
  return (
    <Card title="Send a test event" description="A sample payload of the type, signed as a real call, sent now with test: true. It is not logged among the deliveries or retried.">
      <Form onSubmit={submit} className="test-event-form" validationBehavior="aria">
        <div className="field">
          <label htmlFor="test-event-type" className="field-label">
            Event type
          </label>
          <select id="test-event-type" className="input" value={type} onChange={(event) => setType(event.target.value)}>
            {types.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <SubmitButton pending={send.isPending}>Send test event</SubmitButton>
      </Form>
      <FormErrors error={send.error} fields={[]} />
      <p role="status" className={send.data && !send.isPending ? 'test-summary' : 'visually-hidden'}>
        {send.data && !send.isPending ? testCallSummary(send.data) : ''}
      </p>
      {send.data && !send.isPending && <Call call={send.data} />}
    </Card>
  )
}
