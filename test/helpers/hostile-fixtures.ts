import type { World } from './world.ts'

const FROM = 'shop@sender.example.com'
const inOneDay = () => new Date(Date.now() + 86_400_000).toISOString()
const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] }

/**
 * Bodies that the routes accept, so that a hostile value in one field reaches the code behind the
 * schema. Routes not named here get a body made from their schema.
 */
export const SEEDS: Record<string, unknown> = {
  'post /v1/send': { to: 'jane@example.net', subject: 'Hi', body: '<p>Hi</p>', from: FROM, name: 'Shop', reply: 'help@sender.example.com', headers: { 'X-Tag': 'a' }, data: { plan: 'pro' } },
  'post /api/v1/emails': { to: 'jane@example.net', from: `Shop <${FROM}>`, subject: 'Hi', html: '<p>Hi</p>', text: 'Hi', replyTo: FROM, headers: { 'X-Tag': 'a' } },
  'post /api/v1/emails/batch': [{ to: 'jane@example.net', from: FROM, subject: 'Hi', text: 'Hi' }],
  'patch /api/v1/emails/{emailId}': { scheduledAt: inOneDay() },
  'post /templates': { name: 'T', subject: 'Hello {{name}}', body: '<p>Hi {{name}}</p>' },
  'post /segments': { name: 'Pros', condition, trackMembership: true },
  'patch /segments/{id}': { name: 'Listed', description: 'By hand' },
  'post /segments/{id}/members': { emails: ['member@example.net'] },
  'delete /segments/{id}/members': { emails: ['member@example.net'] },
  'patch /contacts/{id}': { email: 'renamed@example.net', subscribed: false, data: { plan: 'pro', tags: ['a'] } },
  'patch /templates/{id}': { name: 'T2', subject: 'Hello again {{name}}', body: '<p>Again</p>' },
  'patch /webhooks/{id}': { url: 'http://127.0.0.1:9/other', events: ['email.sent'], enabled: false },
  'post /campaigns': { name: 'News', subject: 'News', body: '<p>News {{unsubscribeUrl}}</p>', from: FROM, fromName: 'Shop', audienceType: 'ALL' },
  'put /campaigns/{id}': { name: 'News', subject: 'News', body: '<p>News {{unsubscribeUrl}}</p>', from: FROM, audienceType: 'ALL' },
  'post /campaigns/{id}/send': { scheduledFor: inOneDay() },
  'post /workflows': {
    name: 'Flow',
    triggerType: 'EVENT',
    triggerConfig: { eventName: 'signup' },
    enabled: true,
    steps: [
      { id: 'wait', type: 'DELAY', config: { amount: 1, unit: 'days' }, next: 'mail' },
      { id: 'mail', type: 'SEND_EMAIL', config: { subject: 'Hi', body: '<p>Hi</p>', from: FROM }, next: 'tag' },
      { id: 'tag', type: 'UPDATE_CONTACT', config: { data: { seen: true } }, next: null },
    ],
  },
  'post /workflows/{id}/steps': { step: { id: 'more', type: 'DELAY', config: { amount: 2, unit: 'hours' } } },
  'patch /workflows/{id}/steps/{stepId}': { config: { subject: 'Hello', body: '<p>Hello</p>', from: FROM } },
  'post /workflows/{id}/trigger': { emails: ['fixture@example.net'] },
  'post /webhooks': { url: 'http://127.0.0.1:9/hook', events: ['email.sent', 'contact.created'] },
  'post /api/v1/suppressions': { email: 'bounced@example.net', detail: 'by hand' },
  'post /api/v1/domains': { name: 'other.example.org', region: 'us-east-1' },
  'post /api/v1/campaigns': { name: 'V1', from: FROM, subject: 'V1', contactBookId: 'none', html: '<p>{{unsubscribeUrl}}</p>' },
}

export type Ids = Record<string, string>

/** One request that must succeed (fixtures are made through the API too). */
const caller = (w: World) => async (method: string, path: string, body?: unknown) => {
  const response = await w.t.request(method, path, { key: w.key, body })
  if (response.status >= 300) throw new Error(`fixture ${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body
}

async function importId(w: World) {
  const headers = { authorization: `Bearer ${w.key}`, 'content-type': 'text/csv' }
  const upload = await w.t.app.handle(new Request('http://localhost/contacts/import', { method: 'POST', headers, body: 'email\nimported@example.net\n' }))
  return ((await upload.json()) as { id: string }).id
}

async function workflowIds(w: World, n: number) {
  const call = caller(w)
  const contact = await call('POST', '/contacts', { email: `runner${n}@example.net` })
  const flow = await call('POST', '/workflows', { ...(SEEDS['post /workflows'] as object), triggerType: 'MANUAL', triggerConfig: {} })
  await call('POST', `/workflows/${flow.id}/trigger`, { contactIds: [contact.id] })
  const execution = (await call('GET', `/workflows/${flow.id}/executions`)).executions[0]
  return { id: flow.id, stepId: 'mail', executionId: execution.id }
}

async function bookIds(w: World, n: number) {
  const call = caller(w)
  const book = await call('POST', '/api/v1/contactBooks', { name: `Book ${n}` })
  const member = await call('POST', `/api/v1/contactBooks/${book.id}/contacts`, { email: `member${n}@example.net`, firstName: 'M' })
  return { contactBookId: book.id, contactId: member.contactId }
}

/**
 * Creates, through the API, what the path template names (fresh each time: a DELETE before may
 * have removed the last one), and answers its parameters.
 */
export async function createFixtures(w: World, template: string, n: number): Promise<Ids> {
  const call = caller(w)
  const family = /^\/(api\/v1\/)?([\w]+)(\/import)?/.exec(template)!.slice(2).join('')
  switch (family) {
    case 'contacts':
      return { id: (await call('POST', '/contacts', { email: `fixture${n}@example.net`, data: { plan: 'pro' } })).id }
    case 'contacts/import':
      return { id: await importId(w) }
    case 'domains':
      return { id: String((await call('POST', '/api/v1/domains', { name: `fixture${n}.example.org`, region: 'us-east-1' })).id) }
    case 'emails':
      return { emailId: (await call('POST', '/api/v1/emails', { to: `later${n}@example.net`, from: FROM, subject: 'Later', text: 'x', scheduledAt: inOneDay() })).emailId }
    case 'templates':
      return { id: (await call('POST', '/templates', SEEDS['post /templates'])).id }
    case 'suppressions':
      await call('POST', '/api/v1/suppressions', { email: `gone${n}@example.net` })
      return { email: `gone${n}@example.net` }
    case 'segments':
      return { id: (await call('POST', '/segments', { name: `Static ${n}`, type: 'STATIC' })).id }
    case 'contactBooks':
      return bookIds(w, n)
    case 'forms': {
      const book = await bookIds(w, n)
      return { id: (await call('POST', '/api/v1/forms', { name: `Form ${n}`, contactBookId: book.contactBookId })).id }
    }
    case 'campaigns':
      if (template.startsWith('/api/v1/')) {
        const book = await bookIds(w, n)
        return { campaignId: (await call('POST', '/api/v1/campaigns', { name: 'V1', from: FROM, subject: 'V1', contactBookId: book.contactBookId, html: '<p>{{unsubscribeUrl}}</p>' })).id }
      }
      return { id: (await call('POST', '/campaigns', SEEDS['post /campaigns'])).data.id }
    case 'workflows':
      return workflowIds(w, n)
    case 'webhooks':
      return { id: (await call('POST', '/webhooks', SEEDS['post /webhooks'])).id }
    case 'queue': {
      await call('POST', '/api/v1/emails', { to: `queued${n}@example.net`, from: FROM, subject: 'Later', text: 'x', scheduledAt: inOneDay() })
      return { id: String((await call('GET', '/api/v1/queue/deliveries?state=scheduled&limit=1')).deliveries[0].id) }
    }
    case 'keys':
      return { id: String((await call('POST', '/api/v1/keys', { name: 'Hostile walk', type: 'public' })).id) }
    case 'project':
    case 'account':
      // Members and invitations are the owner's, sessions a signed-in person's: a key is refused them whatever they name.
      return { accountId: 'none', id: 'none' }
    default:
      throw new Error(`no fixture for ${template}`)
  }
}

/** Takes away what piles up to a per-project cap as the walk goes. */
export async function clearCapped(w: World) {
  await w.t.app.db.deleteFrom('webhooks').execute()
}
