import { Elysia, t } from 'elysia'
import * as forms from '../../core/segments/forms.service.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ErrorSchema, strictObject } from '../schemas.ts'

const tags = ['Sign-up forms']
const IdParams = t.Object({ id: t.String({ description: 'Form id' }) })
const withNotFound = { ...authErrors, 404: ErrorSchema }

const FormField = strictObject(
  {
    key: t.String({ description: 'Where the answer goes: firstName, lastName or a key of the contact data' }),
    label: t.String({ description: 'What the form shows beside the field' }),
    required: t.Boolean(),
  },
  { title: 'FormField' },
)

const Form = t.Object(
  {
    id: t.String(),
    name: t.String(),
    contactBookId: t.String({ description: 'The contact book or static segment that lists who signs up' }),
    listName: t.String(),
    doubleOptIn: t.Boolean({ description: "The book's double opt-in: who signs up is listed once they follow the confirmation email's link" }),
    fields: t.Array(FormField, { description: 'Asked besides the email address, which every form asks first' }),
    title: t.String(),
    description: t.String(),
    buttonLabel: t.String(),
    successMessage: t.String(),
    redirectUrl: t.Union([t.String(), t.Null()], { description: 'Where a browser goes after signing up; null: the success page' }),
    enabled: t.Boolean(),
    hostedUrl: t.String({ description: 'The hosted page' }),
    embedHtml: t.String({ description: "HTML to paste into a site: posts to the hosted address with the project's public key (replace pk_YOUR_PUBLIC_KEY)" }),
    createdAt: t.String(),
    updatedAt: t.String(),
  },
  { title: 'SignupForm' },
)

const Changes = {
  name: t.String({ description: 'What the console calls the form' }),
  contactBookId: t.String(),
  fields: t.Array(FormField, { maxItems: 10, error: 'must be at most 10 fields' }),
  title: t.String(),
  description: t.String(),
  buttonLabel: t.String(),
  successMessage: t.String(),
  redirectUrl: t.Union([t.String(), t.Null()]),
  enabled: t.Boolean(),
}

/** The project's sign-up forms (src/core/segments/forms.service.ts); their public side is signup-form.routes.ts. */
export const formRoutes = (deps: HttpDeps) =>
  new Elysia({ prefix: '/api/v1/forms' })
    .use(requireKey(deps))
    .get('', ({ caller }) => forms.listForms(deps.db, caller.project.id, deps.links.baseUrl), {
      response: { 200: t.Object({ data: t.Array(Form) }), ...authErrors },
      detail: { summary: "The project's sign-up forms, newest first", tags },
    })
    .post(
      '',
      async ({ body, caller, set }) => {
        const now = deps.clock.now()
        set.status = 201
        return deps.writer.run((trx) => forms.createForm(trx, caller.project.id, body, deps.links.baseUrl, now))
      },
      {
        body: strictObject({
          name: Changes.name,
          contactBookId: Changes.contactBookId,
          fields: t.Optional(Changes.fields),
          title: t.Optional(Changes.title),
          description: t.Optional(Changes.description),
          buttonLabel: t.Optional(Changes.buttonLabel),
          successMessage: t.Optional(Changes.successMessage),
          redirectUrl: t.Optional(Changes.redirectUrl),
          enabled: t.Optional(Changes.enabled),
        }),
        response: { 201: Form, ...withNotFound },
        detail: { summary: 'Create a sign-up form for a contact book or static segment', tags },
      },
    )
    .get('/:id', ({ params, caller }) => forms.getForm(deps.db, caller.project.id, params.id, deps.links.baseUrl), {
      params: IdParams,
      response: { 200: Form, ...withNotFound },
      detail: { summary: 'Get a sign-up form, with its hosted address and HTML snippet', tags },
    })
    .patch(
      '/:id',
      ({ params, body, caller }) => {
        const now = deps.clock.now()
        return deps.writer.run((trx) => forms.updateForm(trx, caller.project.id, params.id, body, deps.links.baseUrl, now))
      },
      {
        params: IdParams,
        body: t.Partial(strictObject(Changes), { additionalProperties: false }),
        response: { 200: Form, ...withNotFound },
        detail: { summary: 'Change a sign-up form', tags },
      },
    )
    .delete('/:id', ({ params, caller }) => deps.writer.run((trx) => forms.deleteForm(trx, caller.project.id, params.id)), {
      params: IdParams,
      response: { 200: t.Object({ id: t.String(), deleted: t.Boolean() }), ...withNotFound },
      detail: { summary: 'Delete a sign-up form; who signed up stays listed', tags },
    })
