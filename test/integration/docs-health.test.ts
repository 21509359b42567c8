// @database-incidental: the documentation and what it promises; the database only stands behind the examples
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp

beforeAll(async () => {
  t = await createTestApp()
})

afterAll(() => t.close())

describe('GET /health', () => {
  test('answers ok after touching the database, without a key', async () => {
    const response = await t.request('GET', '/health')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ status: 'ok', problems: [], listeners: {}, warnings: [] })
  })

  test('is degraded (503) when the database does not answer, and says so', async () => {
    const broken = await createTestApp()
    try {
      await broken.app.db.destroy()
      const response = await broken.request('GET', '/health')
      expect(response.status).toBe(503)
      expect(response.body).toEqual({ status: 'degraded', problems: ['the database does not answer'], listeners: {}, warnings: [] })
    } finally {
      await broken.close().catch(() => {})
    }
  })
})

describe('OpenAPI', () => {
  const ROUTES = [
    ['get', '/health'],
    ['post', '/v1/track'],
    ['post', '/v1/verify'],
    ['get', '/contacts'],
    ['get', '/contacts/export'],
    ['post', '/contacts/bulk'],
    ['post', '/contacts/bulk/delete'],
    ['post', '/contacts'],
    ['get', '/contacts/{id}'],
    ['patch', '/contacts/{id}'],
    ['delete', '/contacts/{id}'],
    ['get', '/contacts/{id}/events'],
    ['get', '/contacts/{id}/emails'],
    ['get', '/contacts/{id}/memberships'],
    ['get', '/contacts/{id}/runs'],
    ['get', '/contacts/{id}/privacy-export'],
    ['post', '/contacts/{id}/erase'],
    ['post', '/api/v1/domains'],
    ['get', '/api/v1/domains'],
    ['get', '/api/v1/domains/{id}'],
    ['put', '/api/v1/domains/{id}/verify'],
    ['get', '/api/v1/domains/{id}/dmarc'],
    ['get', '/api/v1/domains/{id}/stats'],
    ['delete', '/api/v1/domains/{id}'],
    ['get', '/api/v1/sites'],
    ['patch', '/domains/{id}'],
    ['post', '/v1/send'],
    ['post', '/api/v1/emails'],
    ['post', '/api/v1/emails/batch'],
    ['get', '/api/v1/emails'],
    ['get', '/api/v1/emails/{emailId}'],
    ['patch', '/api/v1/emails/{emailId}'],
    ['post', '/api/v1/emails/{emailId}/cancel'],
    ['get', '/api/v1/emails/{emailId}/raw'],
    ['get', '/api/v1/emails/{emailId}/preview'],
    ['get', '/api/v1/emails/{emailId}/checks'],
    ['get', '/api/v1/analytics/email-time-series'],
    ['get', '/api/v1/analytics/reputation-metrics'],
    ['get', '/templates'],
    ['post', '/templates'],
    ['get', '/templates/{id}'],
    ['patch', '/templates/{id}'],
    ['delete', '/templates/{id}'],
    ['get', '/api/v1/suppressions'],
    ['post', '/api/v1/suppressions'],
    ['delete', '/api/v1/suppressions/{email}'],
    ['post', '/api/v1/suppressions/import'],
    ['get', '/api/v1/queue'],
    ['get', '/api/v1/queue/deliveries'],
    ['get', '/api/v1/reports/dmarc'],
    ['get', '/api/v1/reports/received'],
    ['post', '/api/v1/queue/deliveries/{id}/retry'],
    ['post', '/api/v1/queue/deliveries/{id}/cancel'],
    ['post', '/api/v1/queue/retry'],
    ['post', '/contacts/import'],
    ['get', '/contacts/import'],
    ['get', '/contacts/import/{id}'],
    ['get', '/segments'],
    ['post', '/segments'],
    ['post', '/segments/preview'],
    ['get', '/segments/{id}'],
    ['patch', '/segments/{id}'],
    ['delete', '/segments/{id}'],
    ['get', '/segments/{id}/contacts'],
    ['post', '/segments/{id}/members'],
    ['delete', '/segments/{id}/members'],
    ['get', '/api/v1/contactBooks/{contactBookId}/pending'],
    ['post', '/api/v1/contactBooks/{contactBookId}/contacts/{contactId}/confirmation'],
    ['get', '/api/v1/forms'],
    ['post', '/api/v1/forms'],
    ['get', '/api/v1/forms/{id}'],
    ['patch', '/api/v1/forms/{id}'],
    ['delete', '/api/v1/forms/{id}'],
    ['get', '/api/v1/contactBooks'],
    ['post', '/api/v1/contactBooks'],
    ['get', '/api/v1/contactBooks/{contactBookId}'],
    ['patch', '/api/v1/contactBooks/{contactBookId}'],
    ['delete', '/api/v1/contactBooks/{contactBookId}'],
    ['get', '/api/v1/contactBooks/{contactBookId}/contacts'],
    ['post', '/api/v1/contactBooks/{contactBookId}/contacts'],
    ['post', '/api/v1/contactBooks/{contactBookId}/contacts/bulk'],
    ['delete', '/api/v1/contactBooks/{contactBookId}/contacts/bulk'],
    ['get', '/api/v1/contactBooks/{contactBookId}/contacts/{contactId}'],
    ['put', '/api/v1/contactBooks/{contactBookId}/contacts/{contactId}'],
    ['patch', '/api/v1/contactBooks/{contactBookId}/contacts/{contactId}'],
    ['delete', '/api/v1/contactBooks/{contactBookId}/contacts/{contactId}'],
    ['post', '/campaigns'],
    ['get', '/campaigns'],
    ['get', '/campaigns/{id}'],
    ['put', '/campaigns/{id}'],
    ['patch', '/campaigns/{id}'],
    ['delete', '/campaigns/{id}'],
    ['post', '/campaigns/{id}/send'],
    ['post', '/campaigns/{id}/pause'],
    ['post', '/campaigns/{id}/resume'],
    ['post', '/campaigns/{id}/cancel'],
    ['post', '/campaigns/{id}/test'],
    ['get', '/campaigns/{id}/stats'],
    ['post', '/api/v1/campaigns'],
    ['get', '/api/v1/campaigns'],
    ['get', '/api/v1/campaigns/{campaignId}'],
    ['delete', '/api/v1/campaigns/{campaignId}'],
    ['post', '/api/v1/campaigns/{campaignId}/schedule'],
    ['post', '/api/v1/campaigns/{campaignId}/pause'],
    ['post', '/api/v1/campaigns/{campaignId}/resume'],
    ['get', '/workflows'],
    ['post', '/workflows'],
    ['get', '/workflows/{id}'],
    ['patch', '/workflows/{id}'],
    ['delete', '/workflows/{id}'],
    ['post', '/workflows/{id}/steps'],
    ['patch', '/workflows/{id}/steps/{stepId}'],
    ['delete', '/workflows/{id}/steps/{stepId}'],
    ['get', '/workflows/{id}/executions'],
    ['get', '/workflows/{id}/executions/{executionId}'],
    ['post', '/workflows/{id}/cancel-all'],
    ['post', '/workflows/{id}/trigger'],
    ['get', '/webhooks'],
    ['post', '/webhooks'],
    ['get', '/webhooks/{id}'],
    ['patch', '/webhooks/{id}'],
    ['delete', '/webhooks/{id}'],
    ['post', '/webhooks/{id}/rotate-secret'],
    ['post', '/webhooks/{id}/test'],
    ['get', '/webhooks/{id}/deliveries'],
    ['post', '/webhooks/{id}/deliveries/{deliveryId}/replay'],
    ['get', '/api/v1/server/checks'],
    ['get', '/api/v1/server/relay'],
    ['get', '/api/v1/auth/setup'],
    ['post', '/api/v1/auth/setup'],
    ['post', '/api/v1/auth/sign-in'],
    ['post', '/api/v1/auth/password'],
    ['get', '/api/v1/auth/session'],
    ['post', '/api/v1/auth/sign-out'],
    ['get', '/api/v1/account/projects'],
    ['post', '/api/v1/account/projects'],
    ['get', '/api/v1/account/sessions'],
    ['delete', '/api/v1/account/sessions/{id}'],
    ['post', '/api/v1/account/totp'],
    ['post', '/api/v1/account/totp/confirm'],
    ['get', '/api/v1/account/totp'],
    ['post', '/api/v1/account/totp/recovery-codes'],
    ['post', '/api/v1/account/totp/disable'],
    ['post', '/api/v1/account/password'],
    ['post', '/api/v1/invitations/lookup'],
    ['post', '/api/v1/invitations/accept'],
    ['get', '/api/v1/project'],
    ['patch', '/api/v1/project'],
    ['delete', '/api/v1/project'],
    ['get', '/api/v1/keys'],
    ['post', '/api/v1/keys'],
    ['delete', '/api/v1/keys/{id}'],
    ['get', '/api/v1/project/members'],
    ['patch', '/api/v1/project/members/{accountId}'],
    ['delete', '/api/v1/project/members/{accountId}'],
    ['get', '/api/v1/project/invitations'],
    ['post', '/api/v1/project/invitations'],
    ['delete', '/api/v1/project/invitations/{id}'],
  ] as const

  test('/swagger/json lists every route with its schemas', async () => {
    const { status, body } = await t.request('GET', '/swagger/json')
    expect(status).toBe(200)
    expect(body.openapi).toMatch(/^3\./)
    for (const [method, path] of ROUTES) {
      const operation = body.paths[path]?.[method]
      expect({ route: `${method} ${path}`, documented: Boolean(operation) }).toEqual({ route: `${method} ${path}`, documented: true })
      expect(operation.summary).toBeTruthy()
      expect(operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['202']).toBeTruthy()
      // Actions on a resource named in the path take no body.
      if ((method === 'post' || method === 'patch') && !/verify|cancel|pause|resume|retry|replay|sign-out|erase|totp$|confirmation$/.test(path)) expect(operation.requestBody).toBeTruthy()
    }
    const documented = Object.entries(body.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`))
    expect(documented.sort()).toEqual(ROUTES.map(([m, p]) => `${m} ${p}`).sort())
  })

  test('/swagger serves the page', async () => {
    const response = await t.request('GET', '/swagger')
    expect(response.status).toBe(200)
    expect(String(response.body)).toContain('<html')
  })
})
