import { Elysia, t } from 'elysia'
import { track } from '../../core/events/events.service.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, EmailField, strictObject } from '../schemas.ts'

export const trackRoutes = (deps: HttpDeps) =>
  new Elysia().use(requireKey(deps, { publicKey: true })).post(
    '/v1/track',
    async ({ body, caller }) => {
      const now = deps.clock.now()
      const data = await deps.writer.run((trx) => track(trx, caller.project.id, body, now))
      return { success: true as const, data }
    },
    {
      body: strictObject({
        email: EmailField,
        event: t.String({ description: 'Event name, 1 to 100 characters; email.*, contact.* and segment.* are reserved' }),
        subscribed: t.Optional(t.Boolean({ description: 'Marketing subscription; true when absent' })),
        preserveExistingSubscription: t.Optional(
          t.Boolean({ description: 'When true, `subscribed` is applied only if this request creates the contact; an existing contact keeps its subscription' }),
        ),
        data: t.Optional(
          t.Record(t.String(), t.Any(), {
            description:
              'Merged into the contact (a null value removes its key) and kept with the event. A value `{"value": ..., "persistent": false}` is a one-shot variable: the event and workflows get its value, the contact does not keep it',
          }),
        ),
      }),
      response: {
        200: t.Object({
          success: t.Literal(true),
          data: t.Object({ contact: t.String(), event: t.String(), timestamp: t.String({ format: 'date-time' }) }),
        }),
        ...authErrors,
      },
      detail: {
        summary: 'Track an event for a contact (secret or public key)',
        description: 'Creates or updates the contact by email, merges data into it and records the event.',
        tags: ['Events'],
      },
    },
  )
