/** Every authenticated route with a request that would succeed, for table-driven tests. */
export const authenticatedRoutes = (contactId: string) => [
  { method: 'GET', path: '/contacts', body: undefined },
  { method: 'GET', path: `/contacts/${contactId}`, body: undefined },
  { method: 'POST', path: '/contacts', body: { email: 'new@example.com' } },
  { method: 'PATCH', path: `/contacts/${contactId}`, body: { subscribed: false } },
  { method: 'DELETE', path: `/contacts/${contactId}`, body: undefined },
  { method: 'POST', path: '/v1/track', body: { email: 'jane@example.com', event: 'signup' } },
  { method: 'POST', path: '/v1/verify', body: { email: 'jane@example.com' } },
]
