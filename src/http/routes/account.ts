import { Elysia, t } from 'elysia'
import { createOwnedProject, listMyProjects } from '../../core/accounts/members.service.ts'
import type { HttpDeps } from '../deps.ts'
import { ErrorSchema, strictObject } from '../schemas.ts'
import { requireSession } from '../session.ts'

const tags = ['Accounts']
const errors = { 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema }
const MyProject = t.Object({ id: t.Integer(), name: t.String(), disabled: t.Boolean(), role: t.String() })

/** What belongs to the signed-in person rather than to a project: the project switcher's list. */
export const accountRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/account' })
    .use(requireSession(deps))
    .get('/projects', ({ session }) => listMyProjects(deps.db, session.accountId), {
      response: { 200: t.Array(MyProject), ...errors },
      detail: { summary: 'Your projects with your role in each', tags },
    })
    .post(
      '/projects',
      ({ body, session, set }) => {
        set.status = 201
        const now = deps.clock.now()
        return deps.writer.run((trx) => createOwnedProject(trx, session.accountId, body.name, now))
      },
      {
        body: strictObject({ name: t.String({ maxLength: 100 }) }),
        response: {
          201: t.Object({ id: t.Integer(), name: t.String(), role: t.String(), secretKey: t.String({ description: 'Shown this once' }), publicKey: t.String({ description: 'Shown this once' }) }),
          ...errors,
        },
        detail: { summary: 'Create a project; you become its owner. Its first keys are shown this once', tags },
      },
    )
