import { useParams } from 'wouter'
import { WebhookDetail } from './webhooks/WebhookDetail.tsx'
import { WebhookList } from './webhooks/WebhookList.tsx'

/** /webhooks: the project's endpoints; /webhooks/:id: one of them with its delivery log. */
export default function Webhooks() {
  const { id } = useParams<{ id?: string }>()
  return id ? <WebhookDetail key={id} id={id} /> : <WebhookList />
}
