import { Elysia, t } from 'elysia'
import { confirmOptIn, optInState, type OptInState } from '../../core/segments/opt-in.service.ts'
import { consentClient } from '../client-address.ts'
import type { HttpDeps } from '../deps.ts'
import { getProject } from '../../core/projects/projects.service.ts'
import { answerPage, invalidLinkPage, projectBrand, renderPage, type Brand } from '../pages.ts'

const TokenParams = t.Object({ token: t.String() })
// Opened from mail, not called by apps: kept out of the OpenAPI document.
const detail = (summary: string) => ({ summary, tags: ['Double opt-in'], hide: true })

/**
 * The confirmation page of a contact book's double opt-in, opened from mail: no key. GET only
 * shows what the link would confirm, so a link scanner that fetches it consents to nothing; the
 * button POSTs, and that records the consent with the client that pressed it.
 */
export const optInRoutes = (deps: HttpDeps) =>
  new Elysia()
    .get(
      '/confirm/:token',
      async ({ params, set }) => {
        const state = await optInState(deps.db, deps.config.secret, params.token, deps.clock.now())
        return answer(set, state, params.token.toLowerCase(), await brandOf(deps, state))
      },
      { params: TokenParams, detail: detail('The confirmation page: shows a button, changes nothing') },
    )
    .post(
      '/confirm/:token',
      async ({ params, request, server, set }) => {
        const now = deps.clock.now()
        const client = consentClient(request, server, deps.trustedProxies)
        const state = await deps.writer.run((trx) => confirmOptIn(trx, deps.config.secret, params.token, client, now))
        return answer(set, state, params.token.toLowerCase(), await brandOf(deps, state))
      },
      { params: TokenParams, detail: detail('Confirm the subscription: lists the contact in the book and records its consent') },
    )

/** The project's name and colour, for the page; none for a link that names no project. */
const brandOf = async (deps: HttpDeps, state: OptInState): Promise<Brand> => (state.kind === 'invalid' ? {} : projectBrand(await getProject(deps.db, state.projectId)))

function answer(set: Parameters<typeof answerPage>[0], state: OptInState, token: string, brand: Brand) {
  switch (state.kind) {
    case 'invalid':
      return answerPage(set, 404, invalidLinkPage)
    case 'expired':
      return answerPage(set, 410, expiredPage(state.book, brand))
    case 'confirmed':
      return answerPage(set, 200, confirmedPage(state.address, state.book, brand))
    case 'waiting':
      return answerPage(set, 200, askPage(state.address, state.book, token, brand))
  }
}

// The page is /confirm/<token>: relative to it, <token> is itself.
const askPage = (address: string, book: string, token: string, brand: Brand) =>
  renderPage({
    ...brand,
    title: 'Confirm your subscription',
    lines: [`Do you want ${address} to get the emails of ${book}?`],
    form: { action: token, label: 'Confirm my subscription' },
  })

const confirmedPage = (address: string, book: string, brand: Brand) =>
  renderPage({ ...brand, title: 'Your subscription is confirmed', lines: [`${address} is subscribed to ${book}.`, 'Nothing more to do: you can close this page.'] })

const expiredPage = (book: string, brand: Brand) =>
  renderPage({
    ...brand,
    title: 'This link has expired',
    lines: [`Confirmation links work for 7 days; this one is older, and nothing was changed.`, `To subscribe to ${book}, sign up again to get a new link.`],
  })
