import { once, requestHash } from '../core/emails/idempotency.ts'
import { enqueueEmail, prepareEmail, type PreparedEmail, type SendRequest } from '../core/emails/send.ts'
import type { Caller } from '../core/projects/projects.service.ts'
import { AppError, invalid } from '../lib/errors.ts'
import type { HttpDeps } from './deps.ts'

const KEY = /^[\x21-\x7e]{1,255}$/

export interface SendCall {
  route: string
  body: unknown
  /** The Idempotency-Key header, when given. */
  idempotencyKey: string | undefined
  /** The request body's name for a field of its `index`-th email, for error messages. */
  fieldOf?: (field: string, index: number) => string
}

/**
 * Accepts emails: each is prepared (checked, rendered, built) outside any transaction, then all
 * are queued in one, so a request is queued whole or not at all. With an Idempotency-Key the
 * answer is stored in that same transaction; a repeat gets it again and queues nothing.
 */
export async function acceptEmails<T>(
  deps: HttpDeps,
  caller: Pick<Caller, 'project'>,
  call: SendCall,
  requests: SendRequest[],
  answer: (queued: Awaited<ReturnType<typeof enqueueEmail>>[], now: number) => T,
): Promise<T> {
  const projectId = caller.project.id
  if (call.idempotencyKey !== undefined && !KEY.test(call.idempotencyKey)) {
    throw invalid('Idempotency-Key', 'must be 1 to 255 printable characters')
  }
  const now = deps.clock.now()
  // Prepared side by side: building runs on the worker threads, so a batch keeps them all busy.
  const emails: PreparedEmail[] = await Promise.all(
    requests.map((request, index) =>
      prepareEmail(deps.db, projectId, request, now, deps.build, deps.links).catch((error) => Promise.reject(renamed(error, call, index))),
    ),
  )
  const queue = async (trx: typeof deps.db) => {
    const queued = []
    for (const email of emails) queued.push(await enqueueEmail(trx, email, deps.sendSettings, now))
    return answer(queued, now)
  }
  const result = await deps.writer.run((trx) =>
    call.idempotencyKey === undefined
      ? queue(trx)
      : once(trx, projectId, call.idempotencyKey, requestHash(call.route, call.body), now, () => queue(trx)),
  )
  return result
}

/** A validation error of one email of several, naming fields as the caller's body does. */
function renamed(error: unknown, call: SendCall, index: number): unknown {
  if (!(error instanceof AppError) || !error.details.errors || !call.fieldOf) return error
  const errors = error.details.errors.map((e) => ({ ...e, field: call.fieldOf!(e.field, index) }))
  return new AppError(error.status, error.code, errors.map((e) => `${e.field}: ${e.message}`).join('; '), { ...error.details, errors })
}
