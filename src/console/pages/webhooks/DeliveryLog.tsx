import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Button } from 'react-aria-components'
import { useApi } from '../../api/context.tsx'
import { webhooksApi, type Webhook, type WebhookDelivery } from '../../api/webhooks.api.ts'
import { PagedList } from '../../components/PagedList.tsx'
import { Empty } from '../../components/States.tsx'
import { Time } from '../../components/Time.tsx'
import { awaitingCalls, deliveryState, mayReplay, prettyBody, prettyJson, responseSummary } from '../../lib/webhooks-view.ts'

const TONES = { ok: 'badge badge-ok', bad: 'badge tone-bad', wait: 'badge tone-wait', off: 'badge badge-off' }

function Replay({ webhook, delivery, onReplayed }: { webhook: Webhook; delivery: WebhookDelivery; onReplayed: () => void }) {
  const { api } = useApi()
  const replay = useMutation({ mutationFn: () => webhooksApi(api).replay(webhook.id, delivery.id), onSuccess: onReplayed })
  return (
    <div className="hooks-replay">
      <Button className="button button-small" aria-label={`Replay ${delivery.type} event ${delivery.eventId}`} isPending={replay.isPending} onPress={() => replay.mutate()}>
        Replay
      </Button>
      {replay.error ? (
        <p className="field-error" role="alert">
          {(replay.error as Error).message}
        </p>
      ) : null}
    </div>
  )
}

/** One call's worth: the event, what became of it, and (opened) the request sent and the answer got. */
function DeliveryCard({ webhook, delivery, mayManage, onReplayed }: { webhook: Webhook; delivery: WebhookDelivery; mayManage: boolean; onReplayed: () => void }) {
  const state = deliveryState(delivery)
  const heading = `delivery-${delivery.id}`
  return (
    <article className="hooks-delivery" aria-labelledby={heading}>
      <div className="hooks-delivery-head">
        <h3 id={heading}>
          <code>{delivery.type}</code>
        </h3>
        <span className={TONES[state.tone]}>{state.label}</span>
        <span className="hooks-delivery-response">{responseSummary(delivery)}</span>
        {mayManage && mayReplay(delivery, webhook.enabled) && <Replay webhook={webhook} delivery={delivery} onReplayed={onReplayed} />}
      </div>
      <p className="hooks-delivery-meta muted">
        Event <Time value={delivery.createdAt} /> · {delivery.attempts === 1 ? '1 attempt' : `${delivery.attempts} attempts`}
        {delivery.lastAttemptAt && (
          <>
            {' '}
            · last call <Time value={delivery.lastAttemptAt} />
          </>
        )}
        {delivery.state === 'pending' && delivery.nextAttemptAt && (
          <>
            {' '}
            · next call <Time value={delivery.nextAttemptAt} />
          </>
        )}
      </p>
      <details className="hooks-exchange">
        <summary>Request and response</summary>
        <div className="hooks-exchange-body">
          <section aria-label="Request">
            <h4>Request</h4>
            <p className="hooks-line">
              <code>POST {webhook.url}</code>
            </p>
            <p className="muted">
              <code>x-mailstead-id: {delivery.eventId}</code>, the same on every attempt and replay
            </p>
            <pre className="hooks-pre">{prettyJson(delivery.payload)}</pre>
          </section>
          <section aria-label="Response">
            <h4>Response</h4>
            <p>{responseSummary(delivery)}</p>
            {delivery.lastError && delivery.lastStatus !== null && <p className="field-error">{delivery.lastError}</p>}
            {delivery.lastResponseBody ? <pre className="hooks-pre">{prettyBody(delivery.lastResponseBody)}</pre> : delivery.lastAttemptAt && <p className="muted">No body.</p>}
          </section>
        </div>
      </details>
    </article>
  )
}

/** A webhook's deliveries, newest first, paged on the server; read again soon while calls are due within seconds, else now and then. */
export function DeliveryLog({ webhook, queryKey, mayManage, onReplayed }: { webhook: Webhook; queryKey: readonly unknown[]; mayManage: boolean; onReplayed: () => void }) {
  const { api } = useApi()
  const queries = useQueryClient()
  return (
    <section aria-labelledby="delivery-log" className="hooks-log">
      <div className="hooks-log-head">
        <h2 id="delivery-log">Delivery log</h2>
        <Button className="button button-small" aria-label="Refresh the delivery log" onPress={() => queries.invalidateQueries({ queryKey })}>
          Refresh
        </Button>
      </div>
      <p className="muted">Each event sent to this endpoint, newest first. A call that fails is tried again 5 times over about an hour; finished deliveries are kept for a while.</p>
      <PagedList
        label="Deliveries"
        queryKey={queryKey}
        fetchPage={webhooksApi(api).deliveries(webhook.id)}
        itemKey={(d) => d.id}
        renderItem={(d) => <DeliveryCard webhook={webhook} delivery={d} mayManage={mayManage} onReplayed={onReplayed} />}
        refreshEvery={(items) => (awaitingCalls(items, Date.now()) ? 1500 : 15_000)}
        empty={<Empty title="Nothing sent to this endpoint yet.">{<p>When one of its events happens, its delivery shows here with the request and the answer.</p>}</Empty>}
      />
    </section>
  )
}
