import { Elysia } from 'elysia'
import { corsRoutes, CROSS_ORIGIN_HEADERS, isCrossOriginRoute } from './cors.ts'
import { readBody } from './request-body.ts'
import type { HttpDeps } from './deps.ts'
import { errorBody, toAppError } from './error-body.ts'
import { observeRequests } from './observe.ts'
import { apiDocumentRoutes } from './openapi/routes.ts'
import { requestIdFor } from './request-id.ts'
import { analyticsRoutes } from './routes/analytics.routes.ts'
import { accountRoutes } from './routes/account.routes.ts'
import { authRoutes } from './routes/auth.routes.ts'
import { invitationRoutes } from './routes/invitations.routes.ts'
import { projectRoutes } from './routes/project.routes.ts'
import { campaignRoutes } from './routes/campaigns.routes.ts'
import { campaignV1Routes } from './routes/campaigns-v1.routes.ts'
import { contactBookRoutes } from './routes/contact-books.routes.ts'
import { contactImportRoutes } from './routes/contact-imports.routes.ts'
import { consoleRoutes } from './routes/console.routes.ts'
import { contactRoutes } from './routes/contacts.routes.ts'
import { contactRecordRoutes } from './routes/contact-records.routes.ts'
import { docsRoutes } from './routes/documentation.routes.ts'
import { domainRoutes } from './routes/domains.routes.ts'
import { queueRoutes } from './routes/queue.routes.ts'
import { domainStatsRoutes } from './routes/domain-stats.routes.ts'
import { emailPreviewRoutes, emailRoutes } from './routes/emails.routes.ts'
import { healthRoutes } from './routes/health.routes.ts'
import { metricsRoutes } from './routes/metrics.routes.ts'
import { segmentRoutes } from './routes/segments.routes.ts'
import { siteRoutes } from './routes/sites.routes.ts'
import { serverRoutes } from './routes/server.routes.ts'
import { sendRoutes } from './routes/send.routes.ts'
import { suppressionRoutes } from './routes/suppressions.routes.ts'
import { templateRoutes } from './routes/templates.routes.ts'
import { trackRoutes } from './routes/track.routes.ts'
import { trackingRoutes } from './routes/tracking.routes.ts'
import { unsubscribeRoutes } from './routes/unsubscribe.routes.ts'
import { optInRoutes } from './routes/opt-in.routes.ts'
import { formRoutes } from './routes/forms.routes.ts'
import { signupFormRoutes } from './routes/signup-form.routes.ts'
import { verifyRoutes } from './routes/verify.routes.ts'
import { webhookRoutes } from './routes/webhooks.routes.ts'
import { reportRoutes } from './routes/reports.routes.ts'
import { workflowRoutes } from './routes/workflows.routes.ts'

/** The whole HTTP API as one Elysia instance; `handle(Request)` serves it in tests and in Bun.serve. */
export function createHttpApp(deps: HttpDeps) {
  const app = new Elysia({ normalize: false })
    // First, so that its clock starts before anything else runs, even a hook that refuses the request.
    .use(observeRequests(deps.metrics, deps.logger))
    .onRequest(({ request, set }) => {
      set.headers['x-request-id'] = requestIdFor(request)
    })
    // Body limits and CORS go by the route the router matched, never by the request's spelling of
    // its path: /v1/track/ is /v1/track, and /contacts/import/ streams its body like /contacts/import.
    .onParse({ as: 'global' }, ({ request, contentType, route }) => readBody(request, contentType, route))
    .onTransform({ as: 'global' }, ({ route, set }) => {
      if (isCrossOriginRoute(route)) Object.assign(set.headers, CROSS_ORIGIN_HEADERS)
    })
    .onError({ as: 'global' }, ({ code, error, set, request, route }) => {
      if (isCrossOriginRoute(route)) Object.assign(set.headers, CROSS_ORIGIN_HEADERS)
      const failure = toAppError(code, error, request, deps.logger, route)
      set.status = failure.status
      Object.assign(set.headers, failure.details.headers)
      // The rest of an oversized body is never read: close the connection instead of leaving the
      // client blocked on sending it.
      if (failure.status === 413) set.headers.connection = 'close'
      return errorBody(String(set.headers['x-request-id']), failure)
    })
    .use(
      apiDocumentRoutes(deps.config, {
        info: { title: 'Mailstead API', version: '0.1.0', description: 'Self-hosted email platform' },
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'sk_... or pk_...' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'mailstead_session',
            description:
              "The console's session (POST /api/v1/auth/sign-in), with the X-Project-Id header naming the project on project routes. Writes also need X-CSRF-Token.",
          },
        },
        security: [{ bearer: [] }, { session: [] }],
      }),
    )
    .use(corsRoutes())
    .use(healthRoutes(deps))
    .use(consoleRoutes(deps))
    .use(authRoutes(deps))
    .use(accountRoutes(deps))
    .use(invitationRoutes(deps))
    .use(projectRoutes(deps))
    .use(metricsRoutes(deps))
    .use(trackRoutes(deps))
    .use(trackingRoutes(deps))
    .use(unsubscribeRoutes(deps))
    .use(verifyRoutes(deps))
    .use(contactImportRoutes(deps))
    .use(contactRoutes(deps))
    .use(domainRoutes(deps))
    .use(domainStatsRoutes(deps))
    .use(sendRoutes(deps))
    .use(emailRoutes(deps))
    .use(emailPreviewRoutes(deps))
    .use(analyticsRoutes(deps))
    .use(siteRoutes(deps))
    .use(templateRoutes(deps))
    .use(suppressionRoutes(deps))
    .use(queueRoutes(deps))
    .use(segmentRoutes(deps))
    .use(contactBookRoutes(deps))
    .use(campaignRoutes(deps))
    .use(campaignV1Routes(deps))
    .use(workflowRoutes(deps))
    .use(webhookRoutes(deps))
    .use(serverRoutes(deps))
  // A contact's page and privacy (its events, emails, memberships, runs; export and erase): apart
  // from the chain, whose type is as deep as TypeScript follows (see the documentation's below).
  app.use(contactRecordRoutes(deps))
  // The documentation under /docs: used apart from the chain because the chain's type is as deep
  // as TypeScript follows, and these pages add nothing to the API's type. `use` adds the routes to
  // this same instance, after every hook above, as the chain would.
  app.use(docsRoutes())
  // The reports and sign-up forms too: the chain's type cannot take one more instance. Their routes are in the API
  // document and checked like the others; only the app's TypeScript type leaves them out.
  app.use(reportRoutes(deps))
  app.use(formRoutes(deps))
  // And the pages people open, out of the document: double opt-in's confirmation, sign-up forms.
  app.use(optInRoutes(deps))
  app.use(signupFormRoutes(deps))
  return app
}

export type HttpApp = ReturnType<typeof createHttpApp>
