import { Elysia, t } from 'elysia'
import * as templates from '../../core/templates/templates.service.ts'
import { invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { dirQuery, sortQuery } from '../list-schemas.ts'
import { authErrors, ErrorSchema, intQuery, oneOf, strictObject } from '../schemas.ts'

const TemplateSchema = t.Object({
  id: t.String(),
  name: t.String(),
  subject: t.String(),
  body: t.String(),
  type: t.UnionEnum(templates.TEMPLATE_TYPES),
  createdAt: t.String(),
  updatedAt: t.String(),
}, { title: 'Template' })

const Fields = {
  name: t.String({ description: 'For people choosing a template' }),
  subject: t.String({ description: 'May hold {{placeholders}}' }),
  body: t.String({ description: 'HTML; may hold {{name}} and {{name ?? fallback}}' }),
  type: oneOf(templates.TEMPLATE_TYPES, `What the template is for: ${templates.TEMPLATE_TYPES.join(', ')}; ${templates.DEFAULT_TEMPLATE_TYPE} when absent on create`),
}

const IdParams = t.Object({ id: t.String() })
const tags = ['Templates']

export const templateRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/templates' })
    .use(requireKey(deps))
    .get('', ({ query, caller }) => templates.listTemplates(deps.db, caller.project.id, { ...query, page: query.page ?? 1, pageSize: query.pageSize ?? 20 }), {
      query: t.Object({
        page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
        pageSize: t.Optional(intQuery('pageSize', 1, 100, 'Page size, 20 when absent')),
        type: t.Optional(oneOf(templates.TEMPLATE_TYPES, 'Only templates of this type')),
        search: t.Optional(t.String({ maxLength: 200, description: 'Text the name or subject holds, any case; % and _ are literal', error: 'must be at most 200 characters', 'x-field': 'search' })),
        sort: sortQuery(Object.keys(templates.TEMPLATE_SORTS) as [templates.TemplateSort, ...templates.TemplateSort[]]),
        dir: dirQuery,
      }),
      response: {
        200: t.Object({ templates: t.Array(TemplateSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }),
        ...authErrors,
      },
      detail: { summary: 'List templates, newest first unless sorted', tags },
    })
    .post(
      '',
      async ({ body, caller, set }) => {
        const now = deps.clock.now()
        set.status = 201
        return deps.writer.run((trx) => templates.createTemplate(trx, caller.project.id, body, now))
      },
      { body: strictObject({ ...Fields, type: t.Optional(Fields.type) }), response: { 201: TemplateSchema, ...authErrors }, detail: { summary: 'Create a template', tags } },
    )
    .get('/:id', async ({ params, caller }) => templates.toTemplate(await templates.findTemplate(deps.db, caller.project.id, params.id)), {
      params: IdParams,
      response: { 200: TemplateSchema, ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Get a template', tags },
    })
    .patch(
      '/:id',
      ({ params, body, caller }) => {
        if (Object.keys(body).length === 0) throw invalid('body', 'give at least one of name, subject, body, type')
        const now = deps.clock.now()
        return deps.writer.run((trx) => templates.updateTemplate(trx, caller.project.id, params.id, body, now))
      },
      {
        params: IdParams,
        body: strictObject({ name: t.Optional(Fields.name), subject: t.Optional(Fields.subject), body: t.Optional(Fields.body), type: t.Optional(Fields.type) }),
        response: { 200: TemplateSchema, ...authErrors, 404: ErrorSchema },
        detail: { summary: 'Update a template', tags },
      },
    )
    .delete('/:id', ({ params, caller }) => deps.writer.run((trx) => templates.deleteTemplate(trx, caller.project.id, params.id)), {
      params: IdParams,
      response: { 200: t.Object({ id: t.String(), success: t.Boolean(), message: t.String() }), ...authErrors, 404: ErrorSchema },
      detail: { summary: 'Delete a template', tags },
    })
