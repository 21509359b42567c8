import { Elysia, t } from 'elysia'
import * as members from '../../core/segments/segment-members.service.ts'
import * as segments from '../../core/segments/segments.service.ts'
import { invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ContactSchema, ErrorSchema, intQuery, oneOf, strictObject } from '../schemas.ts'

export const ConditionSchema = t.Unknown({
  title: 'Condition',
  description:
    '{logic: AND|OR, groups: [{filters: [{field, operator, value?, unit?}], conditions?}]}. Fields: email, subscribed, createdAt, updatedAt, ' +
    'data.<key>, event.<name>, email.<status>, segment.<id>. Operators: equals, notEquals, contains, notContains, startsWith, endsWith, gt, gte, ' +
    'lt, lte, exists, notExists, within, olderThan (unit minutes|hours|days|weeks), triggered, notTriggered, triggeredWithin, memberOfSegment, notMemberOfSegment.',
})

export const SegmentSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  type: t.UnionEnum(['DYNAMIC', 'STATIC']),
  condition: t.Unknown(),
  trackMembership: t.Boolean(),
  memberCount: t.Integer(),
  projectId: t.String(),
  createdAt: t.String(),
  updatedAt: t.String(),
}, { title: 'Segment' })

const PreviewSchema = t.Object({
  count: t.Integer({ description: 'How many contacts the condition matches now' }),
  contacts: t.Array(t.Object({ id: t.String(), email: t.String(), subscribed: t.Boolean() }), { description: 'The newest ten of them' }),
}, { title: 'SegmentPreview' })

const Members = strictObject({
  contactIds: t.Optional(t.Array(t.String(), { maxItems: 1000 })),
  emails: t.Optional(t.Array(t.String(), { maxItems: 1000 })),
})

const IdParams = t.Object({ id: t.String() })
const tags = ['Segments']

const needsMembers = (body: { contactIds?: string[]; emails?: string[] }) => {
  if (!body.contactIds?.length && !body.emails?.length) throw invalid('body', 'give contactIds or emails')
  return body
}

export const segmentRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/segments' })
    .use(requireKey(deps))
    .get('', ({ caller }) => segments.listSegments(deps.db, caller.project.id, deps.clock.now()), {
      response: { 200: t.Array(SegmentSchema), ...authErrors },
      detail: { summary: "List the project's segments with their member counts", tags },
    })
    .post(
      '',
      ({ body, caller, set }) => {
        const now = deps.clock.now()
        set.status = 201
        return deps.writer.run((trx) => segments.createSegment(trx, caller.project.id, body, now))
      },
      {
        body: strictObject({
          name: t.String(),
          description: t.Optional(t.Union([t.String(), t.Null()])),
          type: t.Optional(oneOf(['DYNAMIC', 'STATIC'], 'DYNAMIC (default): by condition; STATIC: listed members')),
          condition: t.Optional(ConditionSchema),
          trackMembership: t.Optional(t.Boolean({ description: 'Record entries and exits as events segment.<id>.entry / .exit' })),
        }),
        response: { 201: SegmentSchema, ...authErrors },
        detail: { summary: 'Create a segment', tags },
      },
    )
    .post('/preview', ({ body, caller }) => segments.previewSegment(deps.db, caller.project.id, body.condition, deps.clock.now()), {
      body: strictObject({ condition: ConditionSchema }),
      response: { 200: PreviewSchema, ...authErrors },
      detail: {
        summary: 'Count the members a condition would have, with the newest ten, without saving it',
        description: 'Read-only (every role and a read key may call it): the condition is checked as POST /segments checks it, with the same errors and limits.',
        tags,
      },
    })
    .get('/:id', ({ params, caller }) => segments.getSegment(deps.db, caller.project.id, params.id, deps.clock.now()), {
      params: IdParams,
      response: { 200: SegmentSchema, ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Get a segment with its member count', tags },
    })
    .patch(
      '/:id',
      ({ params, body, caller }) => {
        const now = deps.clock.now()
        return deps.writer.run((trx) => segments.updateSegment(trx, caller.project.id, params.id, body, now))
      },
      {
        params: IdParams,
        body: strictObject({
          name: t.Optional(t.String()),
          description: t.Optional(t.Union([t.String(), t.Null()])),
          condition: t.Optional(ConditionSchema),
          trackMembership: t.Optional(t.Boolean()),
        }),
        response: { 200: SegmentSchema, ...authErrors, 404: ErrorSchema },
        detail: { summary: 'Update a segment', tags },
      },
    )
    .delete(
      '/:id',
      ({ params, caller }) => {
        const now = deps.clock.now()
        return deps.writer.run((trx) => segments.deleteSegment(trx, caller.project.id, params.id, now))
      },
      {
        params: IdParams,
        response: { 200: t.Object({ id: t.String(), success: t.Boolean(), message: t.String() }), ...authErrors, 404: ErrorSchema, 409: ErrorSchema },
        detail: { summary: 'Delete a segment that no other segment names', tags },
      },
    )
    .get('/:id/contacts', ({ params, query, caller }) => members.segmentContacts(deps.db, caller.project.id, params.id, query.page ?? 1, query.pageSize ?? 20, deps.clock.now()), {
      params: IdParams,
      query: t.Object({
        page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
        pageSize: t.Optional(intQuery('pageSize', 1, 100, 'Page size, 20 when absent')),
      }),
      response: { 200: t.Object({ contacts: t.Array(ContactSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }), ...authErrors, 404: ErrorSchema },
      detail: { summary: "A page of the segment's members", tags },
    })
    .post(
      '/:id/members',
      ({ params, body, caller }) => {
        const now = deps.clock.now()
        return deps.writer.run((trx) => members.addMembers(trx, caller.project.id, params.id, needsMembers(body), now))
      },
      { params: IdParams, body: Members, response: { 200: SegmentSchema, ...authErrors, 404: ErrorSchema, 409: ErrorSchema }, detail: { summary: 'Add members to a STATIC segment', tags } },
    )
    .delete(
      '/:id/members',
      ({ params, body, caller }) => {
        const now = deps.clock.now()
        return deps.writer.run((trx) => members.removeMembers(trx, caller.project.id, params.id, needsMembers(body), now))
      },
      { params: IdParams, body: Members, response: { 200: SegmentSchema, ...authErrors, 404: ErrorSchema, 409: ErrorSchema }, detail: { summary: 'Remove members from a STATIC segment', tags } },
    )
