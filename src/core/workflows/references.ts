import type { Db } from '../../db/schema.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { mailboxOf } from '../emails/mailbox.ts'
import { senderDomain } from '../emails/send.ts'
import { segmentTracksMembership } from '../segments/segment-queries.ts'
import { templateExists } from '../templates/templates.service.ts'
import { compileCondition, type CompileContext } from '../segments/compile.ts'
import { forEachFilter, segmentIdOf, type Condition } from '../segments/condition.ts'
import { compileContext } from '../segments/membership.ts'
import { segmentOfEvent } from './trigger.ts'
import type { EventTrigger, ScheduleTrigger, Step, TriggerConfig, TriggerType } from './workflow.ts'

/*
 * What a workflow names must exist in its project: the segments of its trigger and conditions,
 * the templates and verified sender domains of its emails. Checked on the way in and again when
 * it is enabled; the engine copes with what disappears later.
 */

/** The refusal of a lookup or a compile (a 403, a 422 of its own) as a 422 at `path`, its suggestion kept. */
function at(path: string, prefix: string, error: AppError): AppError {
  const message = prefix + (error.details.errors?.[0]?.message ?? error.message)
  return new AppError(422, 'VALIDATION_ERROR', `${path}: ${message}`, { errors: [{ field: path, message }], suggestion: error.details.suggestion })
}

export async function checkTriggerReferences(db: Db, projectId: number, type: TriggerType, config: TriggerConfig, now: number): Promise<void> {
  if (type === 'SCHEDULE') {
    const { segmentId } = config as ScheduleTrigger
    if (segmentId && !(await segmentExists(db, projectId, segmentId))) throw invalid('triggerConfig.segmentId', `there is no segment ${segmentId} in this project`)
  }
  if (type !== 'EVENT') return
  const { eventName, condition } = config as EventTrigger
  await checkSegmentEvent(db, projectId, eventName, 'triggerConfig.eventName', '')
  if (condition) checkConditionReferences(condition, 'triggerConfig.condition', await compileContext(db, projectId, now), '')
}

export async function checkStepReferences(db: Db, projectId: number, steps: readonly Step[], now: number, field = 'steps'): Promise<void> {
  const context = steps.some((step) => step.type === 'CONDITION') ? await compileContext(db, projectId, now) : undefined
  for (const [i, step] of steps.entries()) {
    const path = `${field}[${i}].config`
    const prefix = `step '${step.id}': `
    if (step.type === 'SEND_EMAIL') await checkEmail(db, projectId, step.config, path, prefix)
    if (step.type === 'WAIT_FOR_EVENT') await checkSegmentEvent(db, projectId, step.config.eventName, `${path}.eventName`, prefix)
    if (step.type === 'CONDITION') checkConditionReferences(step.config.condition, `${path}.condition`, context!, prefix)
  }
}

async function checkEmail(db: Db, projectId: number, config: { templateId?: string; from: string }, path: string, prefix: string): Promise<void> {
  try {
    await senderDomain(db, projectId, mailboxOf(config.from, `${path}.from`).address)
  } catch (error) {
    throw error instanceof AppError ? at(`${path}.from`, prefix, error) : error
  }
  if (!config.templateId) return
  if (!(await templateExists(db, projectId, config.templateId))) throw invalid(`${path}.templateId`, `${prefix}there is no template ${config.templateId} in this project`)
}

const segmentExists = async (db: Db, projectId: number, id: string) => (await segmentTracksMembership(db, projectId, id)) !== undefined

/** A segment's entries and exits are recorded only while it tracks its membership. */
async function checkSegmentEvent(db: Db, projectId: number, eventName: string, path: string, prefix: string): Promise<void> {
  const id = segmentOfEvent(eventName)
  if (id === undefined) return
  const tracks = await segmentTracksMembership(db, projectId, id)
  if (tracks === undefined) throw invalid(path, `${prefix}there is no segment ${id} in this project`)
  if (!tracks) throw invalid(path, `${prefix}segment ${id} does not track its membership, so it records no entries or exits; turn on its trackMembership first`)
}

/** The segments a condition names exist, and it compiles within the limits. */
function checkConditionReferences(condition: Condition, path: string, context: CompileContext, prefix: string): void {
  forEachFilter(
    condition,
    (filter, filterPath) => {
      const id = segmentIdOf(filter)
      if (id !== undefined && !context.segments.has(id)) throw invalid(`${filterPath}.field`, `${prefix}there is no segment ${id} in this project`)
    },
    path,
  )
  try {
    compileCondition(condition, context)
  } catch (error) {
    throw error instanceof AppError ? at(path, prefix, error) : error
  }
}
