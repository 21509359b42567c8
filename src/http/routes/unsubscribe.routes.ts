import { Elysia, t } from 'elysia'
import { setSubscription, subscriptionOf, type Subscription, type SubscriptionSource } from '../../core/emails/index.ts'
import { choosePreferenceBooks, preferenceBooks } from '../../core/segments/book-contacts.service.ts'
import { emailOfUnsubscribeToken } from '../../core/tracking/unsubscribe-links.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { consentClient } from '../client-address.ts'
import type { HttpDeps } from '../deps.ts'
import { answerPage, invalidLinkPage, projectBrand, renderPage, type PageForm } from '../pages.ts'

const TokenParams = t.Object({ token: t.String() })
// Opened from mail, not called by apps: kept out of the OpenAPI document.
const detail = (summary: string) => ({ summary, tags: ['Unsubscribe'], hide: true })

/**
 * A form with no fields (the page's button) is an empty body. The API's parser reads it, finds
 * nothing and leaves it to Elysia, which would read it again and fail: a body already read is an
 * empty form here. Multipart bodies, which the API's parser does not read, still go to Elysia.
 */
const emptyFormIsNoFields = ({ request }: { request: Request }) => (request.bodyUsed ? NO_FIELDS : undefined)

const NO_FIELDS = Object.freeze({})

/**
 * What a POST carried: nothing (the page's button), or RFC 8058's `List-Unsubscribe=One-Click`,
 * as a form either way. Anything else is refused rather than guessed at.
 */
function sourceOf(request: Request, body: unknown, oneClickAllowed: boolean): SubscriptionSource {
  if (body === undefined || body === NO_FIELDS) return 'link'
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(request.headers.get('content-type') ?? '')) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes a form body', {
      suggestion: 'Post the form as application/x-www-form-urlencoded, or with no body.',
    })
  }
  const fields = body as Record<string, unknown>
  const unknown = Object.keys(fields).find((name) => name !== 'List-Unsubscribe' || !oneClickAllowed)
  if (unknown !== undefined) throw invalid(unknown, 'is not a known field')
  if (!('List-Unsubscribe' in fields)) return 'link'
  if (fields['List-Unsubscribe'] !== 'One-Click') throw invalid('List-Unsubscribe', 'must be One-Click')
  return 'one-click'
}

/** The books a preference page's form checked: its fields are `book-<id>`, nothing else. */
function chosenBooks(body: unknown): string[] {
  if (body === undefined || body === NO_FIELDS) return []
  const fields = Object.keys(body as Record<string, unknown>)
  const unknown = fields.find((name) => !name.startsWith('book-'))
  if (unknown !== undefined) throw invalid(unknown, 'is not a known field')
  return fields.map((name) => name.slice('book-'.length))
}

/** A recipient's contact books, as its page offers them; none without a contact. */
type Books = Awaited<ReturnType<typeof preferenceBooks>>

/**
 * The preference page of one email's recipient, opened from mail: no key. GET only shows where
 * the recipient stands (subscribed, and the project's contact books it is on), so a link scanner
 * that fetches it changes nothing; its buttons POST: save the books chosen, or unsubscribe from
 * everything. RFC 8058's one-click POST unsubscribes as before. Form actions are relative, so the
 * pages work behind any proxy or path prefix.
 */
export const unsubscribeRoutes = (deps: HttpDeps) => {
  const emailOf = (token: string) => emailOfUnsubscribeToken(deps.config.secret, token)
  const change = (token: string, subscribed: boolean, source: SubscriptionSource) => {
    const emailId = emailOf(token)
    const now = deps.clock.now()
    return emailId === undefined ? undefined : deps.writer.run((trx) => setSubscription(trx, emailId, subscribed, source, now))
  }
  const booksOf = async (s: Subscription): Promise<Books> => (s.contactId ? preferenceBooks(deps.db, s.projectId, s.contactId) : [])
  return new Elysia()
    .get(
      '/unsubscribe/:token',
      async ({ params, set }) => {
        const emailId = emailOf(params.token)
        const subscription = emailId === undefined ? undefined : await subscriptionOf(deps.db, emailId)
        if (!subscription) return answerPage(set, 404, invalidLinkPage)
        const token = params.token.toLowerCase()
        return answerPage(set, 200, subscription.subscribed ? preferencesPage(subscription, token, await booksOf(subscription)) : unsubscribedPage(subscription, token))
      },
      { params: TokenParams, detail: detail('The preference page: shows the choices, changes nothing') },
    )
    .post(
      '/unsubscribe/:token/preferences',
      async ({ params, body, request, server, set }) => {
        const emailId = emailOf(params.token)
        const subscription = emailId === undefined ? undefined : await subscriptionOf(deps.db, emailId)
        if (!subscription) return answerPage(set, 404, invalidLinkPage)
        const chosen = chosenBooks(body)
        const { contactId } = subscription
        if (contactId) {
          const now = deps.clock.now()
          const client = consentClient(request, server, deps.trustedProxies)
          await deps.writer.run((trx) => choosePreferenceBooks(trx, subscription.projectId, contactId, chosen, client, now))
        }
        const token = params.token.toLowerCase()
        return answerPage(set, 200, preferencesPage(subscription, `../${token}`, await booksOf(subscription), 'Your preferences are saved.'))
      },
      { params: TokenParams, parse: emptyFormIsNoFields, detail: detail("Save the contact books chosen on the preference page") },
    )
    .post(
      '/unsubscribe/:token',
      async ({ params, body, request, set }) => {
        const subscription = await change(params.token, false, sourceOf(request, body, true))
        if (!subscription) return answerPage(set, 404, invalidLinkPage)
        return answerPage(set, 200, unsubscribedPage(subscription, params.token.toLowerCase()))
      },
      {
        params: TokenParams,
        parse: emptyFormIsNoFields,
        detail: detail("Unsubscribe: the page's button, or RFC 8058 one-click (List-Unsubscribe=One-Click)"),
      },
    )
    .post(
      '/unsubscribe/:token/resubscribe',
      async ({ params, body, request, set }) => {
        const subscription = await change(params.token, true, sourceOf(request, body, false))
        if (!subscription) return answerPage(set, 404, invalidLinkPage)
        return answerPage(set, 200, resubscribedPage(subscription, params.token.toLowerCase()))
      },
      { params: TokenParams, parse: emptyFormIsNoFields, detail: detail('Subscribe again after unsubscribing') },
    )
}

const who = (s: Subscription) => s.address || 'This address'

const brand = (s: Subscription) => projectBrand({ name: s.projectName, brandColor: s.brandColor })

/**
 * The page is /unsubscribe/<token>: relative to it, <token> is itself (`../<token>` from the
 * preferences' answer, one level down). Its books' form comes first, when it has books.
 */
function preferencesPage(s: Subscription, self: string, books: Books, saved?: string) {
  const forms: PageForm[] = []
  if (books.length > 0) {
    forms.push({
      action: `${self}/preferences`,
      legend: 'The lists you get:',
      label: 'Save my preferences',
      fields: books.map((book) => ({ name: `book-${book.id}`, label: book.name, type: 'checkbox' as const, checked: book.listed })),
    })
  }
  forms.push({ action: self, label: 'Unsubscribe from everything', ...(books.length > 0 && { legend: `Or stop every email from ${s.projectName}:` }) })
  return renderPage({
    ...brand(s),
    title: 'Email preferences',
    lines: [...(saved ? [saved] : []), `${who(s)} gets emails from ${s.projectName}.`],
    forms,
  })
}

const unsubscribedPage = (s: Subscription, token: string) =>
  renderPage({
    ...brand(s),
    title: 'You are unsubscribed',
    lines: [`${who(s)} will no longer get emails like this one from ${s.projectName}.`, 'Unsubscribed by mistake?'],
    form: { action: `${token}/resubscribe`, label: 'Subscribe again' },
  })

// The page is /unsubscribe/<token>/resubscribe: ../<token> is the unsubscribe page.
const resubscribedPage = (s: Subscription, token: string) =>
  renderPage({
    ...brand(s),
    title: 'You are subscribed again',
    lines: [`${who(s)} will get emails from ${s.projectName} again.`],
    form: { action: `../${token}`, label: 'Unsubscribe' },
  })
