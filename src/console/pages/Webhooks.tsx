import { useParams } from 'wouter'
import NotFound from './NotFound.tsx'
import { WebhookDetail } from './webhooks/WebhookDetail.tsx'
import { WebhookList } from './webhooks/WebhookList.tsx'

/** /webhooks: the project's endpoints; /webhooks/<id>: one of them with its delivery log. */
export default function Webhooks() {
  const rest = useParams<{ '*'?: string }>()['*'] ?? ''
  if (rest === '') return <WebhookList />
  if (!rest.includes('/')) return <WebhookDetail key={rest} id={rest} />
  return <NotFound />
}
