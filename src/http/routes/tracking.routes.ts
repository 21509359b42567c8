import type { BlockList } from 'node:net'
import { Elysia, t } from 'elysia'
import { clickOfToken, emailOfOpenToken } from '../../core/tracking/links.ts'
import { recordEngagement, type Visitor } from '../../core/emails/engagement.ts'
import { clientAddress, type ServerLike } from '../client-address.ts'
import type { HttpDeps } from '../deps.ts'
import { answerPage, invalidLinkPage } from '../pages.ts'

/** A transparent 1×1 GIF: the smallest image every mail client shows. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64')

const TokenParams = t.Object({ token: t.String() })
// Opened from mail, not called by apps: kept out of the OpenAPI document.
const detail = (summary: string) => ({ summary, tags: ['Tracking'], hide: true })

function visitorOf(request: Request, server: ServerLike, proxies: BlockList): Visitor {
  const userAgent = request.headers.get('user-agent')?.slice(0, 500)
  const ip = clientAddress(request, server, proxies)
  return { ...(userAgent && { userAgent }), ...(ip && { ip }) }
}

/**
 * Open and click tracking, opened from mail clients: no key. A token that does not verify, or
 * names an email that is gone, gets a 404 page and never a redirect: only links this server
 * signed are followed, so it cannot be used to send anyone anywhere.
 */
export const trackingRoutes = (deps: HttpDeps) =>
  new Elysia()
    .get(
      '/t/o/:token',
      async ({ params, request, server, set }) => {
        const emailId = emailOfOpenToken(deps.config.secret, params.token)
        const visitor = visitorOf(request, server, deps.trustedProxies)
        const now = deps.clock.now()
        const known = emailId !== undefined && (await deps.writer.run((trx) => recordEngagement(trx, emailId, { status: 'OPENED', visitor }, now)))
        if (!known) return answerPage(set, 404, invalidLinkPage)
        set.headers['content-type'] = 'image/gif'
        // Each open fetches it again, so each open is seen.
        set.headers['cache-control'] = 'no-store, max-age=0'
        return PIXEL
      },
      { params: TokenParams, detail: detail('Open-tracking pixel: records OPENED and answers a transparent GIF') },
    )
    .get(
      '/t/c/:token',
      async ({ params, request, server, set }) => {
        const click = clickOfToken(deps.config.secret, params.token)
        const target = click && URL.canParse(click.url) ? new URL(click.url) : undefined
        if (!click || !target || !/^https?:$/.test(target.protocol)) return answerPage(set, 404, invalidLinkPage)
        const visitor = visitorOf(request, server, deps.trustedProxies)
        const now = deps.clock.now()
        const known = await deps.writer.run((trx) => recordEngagement(trx, click.emailId, { status: 'CLICKED', url: click.url, visitor }, now))
        if (!known) return answerPage(set, 404, invalidLinkPage)
        set.status = 302
        set.headers.location = target.href
        set.headers['cache-control'] = 'no-store'
        return ''
      },
      { params: TokenParams, detail: detail('Tracked link: records CLICKED and redirects to the link') },
    )
