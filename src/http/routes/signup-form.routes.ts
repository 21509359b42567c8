import { Elysia, t } from 'elysia'
import { authenticate, getProject } from '../../core/projects/projects.service.ts'
import { formPageToken, isFormPageToken, prepareSubmission, publicForm, submitForm, type PublicForm } from '../../core/segments/forms.service.ts'
import { HONEYPOT } from '../../core/segments/form.ts'
import { AppError, notFound } from '../../lib/errors.ts'
import { clientKey } from '../../lib/ip.ts'
import { clientAddress, consentClient } from '../client-address.ts'
import type { HttpDeps } from '../deps.ts'
import { answerPage, projectBrand, renderPage, type Brand, type PageField } from '../pages.ts'

const IdParams = t.Object({ id: t.String() })
// Opened by people and posted by their browsers, not called by apps: kept out of the OpenAPI document.
const detail = (summary: string) => ({ summary, tags: ['Sign-up forms'], hide: true })

const notFoundPage = renderPage({ title: 'This form does not exist', lines: ['It may have been closed. Nothing was sent.'] })

/**
 * A sign-up form's public side. GET /f/<id> is the hosted page; POST /f/<id> signs someone up,
 * from that page (which carries a signed token of the form) or from the snippet pasted into a
 * site (which carries the project's public key). A post from a browser is answered with a page,
 * or sent on to the form's redirect; one that asks for JSON gets JSON.
 */
export const signupFormRoutes = (deps: HttpDeps) =>
  new Elysia()
    .get(
      '/f/:id',
      async ({ params, set }) => {
        const form = await publicForm(deps.db, params.id)
        if (!form) return answerPage(set, 404, notFoundPage)
        return answerPage(set, 200, formPage(form, formPageToken(deps.config.secret, form.id), await brandOf(deps, form)))
      },
      { params: IdParams, detail: detail('The hosted sign-up page') },
    )
    .post(
      '/f/:id',
      async ({ params, body, request, server, set }) => {
        const json = /json/i.test(request.headers.get('accept') ?? '') || /json/i.test(request.headers.get('content-type') ?? '')
        const form = await publicForm(deps.db, params.id)
        if (!form && json) throw notFound('Form')
        if (!form) return answerPage(set, 404, notFoundPage)
        try {
          const posted = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>
          await admit(deps, form, posted)
          const address = clientAddress(request, server, deps.trustedProxies)
          await deps.rateLimiter.take('form-address', `${form.id} ${clientKey(address)}`)
          const now = deps.clock.now()
          const mail = { links: deps.links, build: deps.build, sendSettings: deps.sendSettings }
          const client = consentClient(request, server, deps.trustedProxies)
          const prepared = await prepareSubmission(deps.db, form, posted, mail, now)
          const result = await deps.writer.run((trx) => submitForm(trx, form, posted, client, mail, now, prepared))
          // A filled honeypot is answered as a success, so that a robot learns nothing.
          const status = result.kind === 'pending' ? 'pending' : 'subscribed'
          if (json) return { status }
          if (form.page.redirectUrl) {
            set.status = 303
            set.headers.location = form.page.redirectUrl
            return ''
          }
          return answerPage(set, 200, donePage(form, status, await brandOf(deps, form)))
        } catch (error) {
          if (!(error instanceof AppError) || json) throw error
          Object.assign(set.headers, error.details.headers ?? {})
          return answerPage(set, error.status, formPage(form, formPageToken(deps.config.secret, form.id), await brandOf(deps, form), error))
        }
      },
      { params: IdParams, detail: detail('Sign up: from the hosted page or from a snippet with the public key') },
    )

/** A post is the hosted page's (its signed token) or a snippet's (the project's public key); a secret key is never taken from a page. */
async function admit(deps: HttpDeps, form: PublicForm, posted: Record<string, unknown>) {
  if (typeof posted.t === 'string' && isFormPageToken(deps.config.secret, form.id, posted.t)) return
  if (typeof posted.key !== 'string' || posted.key === '') {
    throw new AppError(401, 'UNAUTHORIZED', "A sign-up form is posted from its hosted page or with the project's public key", {
      suggestion: 'Add <input type="hidden" name="key" value="pk_..."> with the public key of the project to the form.',
    })
  }
  const caller = await authenticate(deps.db, posted.key, deps.clock.now())
  if (caller.keyType !== 'public') {
    throw new AppError(403, 'FORBIDDEN', 'A sign-up form takes the public key (pk_), never a secret key: anyone can read a page', {
      suggestion: 'Put the public key in the form, and revoke the secret key that was in it.',
    })
  }
  if (caller.project.id !== form.projectId) throw new AppError(403, 'FORBIDDEN', "This key is not of the form's project")
}

const brandOf = async (deps: HttpDeps, form: PublicForm): Promise<Brand> => projectBrand(await getProject(deps.db, form.projectId))

function formPage(form: PublicForm, token: string, brand: Brand, error?: AppError) {
  const fields: PageField[] = [
    { name: 'email', label: 'Email', type: 'email', required: true },
    ...form.fields.map((field) => ({ name: field.key, label: field.label, type: 'text' as const, required: field.required })),
    { name: HONEYPOT, label: 'Leave this empty', type: 'text', trap: true },
  ]
  const problem = error ? [error.message] : []
  return renderPage({
    ...brand,
    title: form.page.title,
    lines: [...(form.page.description ? [form.page.description] : []), ...problem],
    form: { action: form.id, label: form.page.button, fields, hidden: { t: token } },
  })
}

const donePage = (form: PublicForm, status: 'pending' | 'subscribed', brand: Brand) =>
  renderPage({
    ...brand,
    title: status === 'pending' ? 'Check your inbox' : form.page.title,
    lines: status === 'pending' ? ['We sent you an email with a link: follow it to confirm your subscription.'] : [form.page.success],
  })

