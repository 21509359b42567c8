import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { invalid, notFound } from '../../lib/errors.ts'
import { mailboxOf, senderDomain } from '../emails/index.ts'
import { defaultSenderOf } from '../projects/project-queries.ts'
import { checkSubject } from '../templates/subject.ts'
import * as repo from './segments.repository.ts'
import { createSegment, deleteSegment } from './segments.service.ts'

/** A contact book (useSend's form) is a STATIC segment; what useSend's form adds is kept in its meta. */
interface BookMeta {
  book: true
  emoji: string
  properties: Record<string, unknown>
  variables: string[]
  doubleOptIn?: DoubleOptIn
}

/** useSend's double opt-in of a book: new contacts are pending until they follow the emailed link. */
export interface DoubleOptIn {
  enabled: boolean
  /** A sender on a verified domain of the project; null: the project's default sender. */
  from: string | null
  subject: string
  /** HTML with {{doubleOptInUrl}}, the link that confirms. */
  content: string
}

export const OPT_IN_URL = '{{doubleOptInUrl}}'

export const DEFAULT_OPT_IN: DoubleOptIn = {
  enabled: false,
  from: null,
  subject: 'Please confirm your subscription',
  content: `<p>Please confirm that you want to receive our emails.</p><p><a href="${OPT_IN_URL}">Confirm my subscription</a></p><p>If you did not ask for this, ignore this email and you will not hear from us again.</p>`,
}

export const optInOf = (meta: BookMeta): DoubleOptIn => ({ ...DEFAULT_OPT_IN, ...meta.doubleOptIn })

export const metaOf = (row: repo.SegmentRow): BookMeta | undefined => {
  const meta = row.meta ? JSON.parse(row.meta) : undefined
  return meta?.book ? { variables: [], ...meta } : undefined
}

/** Whether the segment is a contact book, and its emoji when it is. */
export const bookEmojiOf = (row: repo.SegmentRow): string | undefined => metaOf(row)?.emoji

export async function requireBook(db: Db, projectId: number, id: string) {
  const row = await repo.findSegment(db, projectId, id)
  const meta = row && metaOf(row)
  if (!row || !meta) throw notFound('Contact book')
  return { row, meta }
}

/**
 * A list people can be added to: a contact book (with its double opt-in) or a static segment
 * (none); a dynamic segment's members come from its condition, so it is not one. `field` names the
 * refusal.
 */
export async function requireList(db: Db, projectId: number, id: string, field: string): Promise<{ row: repo.SegmentRow; optIn: DoubleOptIn }> {
  const row = await repo.findSegment(db, projectId, id)
  if (!row) throw notFound('Contact book or segment')
  const meta = metaOf(row)
  if (meta) return { row, optIn: optInOf(meta) }
  if (row.type !== 'STATIC') throw invalid(field, "must be a contact book or a static segment: a dynamic segment's members come from its condition")
  return { row, optIn: DEFAULT_OPT_IN }
}

async function toBook(db: Db, row: repo.SegmentRow, meta: BookMeta) {
  const count = await repo.listedMemberCount(db, row.id)
  return {
    id: row.id,
    name: row.name,
    teamId: row.project_id,
    emoji: meta.emoji,
    properties: meta.properties,
    variables: meta.variables,
    ...optInFields(optInOf(meta)),
    contactCount: count,
    _count: { contacts: count },
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  }
}

const optInFields = (optIn: DoubleOptIn) => ({
  doubleOptInEnabled: optIn.enabled,
  doubleOptInFrom: optIn.from,
  doubleOptInSubject: optIn.subject,
  doubleOptInContent: optIn.content,
})

export interface BookInput {
  name: string
  emoji?: string
  properties?: Record<string, unknown>
  variables?: string[]
  doubleOptInEnabled?: boolean
  doubleOptInFrom?: string | null
  doubleOptInSubject?: string
  doubleOptInContent?: string
}

/**
 * The book's double opt-in after `input`: the sender must be on a verified domain of the project
 * (any address in a sandbox), or be left to the project's default sender when it has one; while
 * it is enabled the content must carry the link to confirm.
 */
async function nextOptIn(db: Db, projectId: number, current: DoubleOptIn, input: Partial<BookInput>): Promise<DoubleOptIn> {
  const next: DoubleOptIn = {
    enabled: input.doubleOptInEnabled ?? current.enabled,
    from: input.doubleOptInFrom !== undefined ? input.doubleOptInFrom : current.from,
    subject: input.doubleOptInSubject ?? current.subject,
    content: input.doubleOptInContent ?? current.content,
  }
  if (input.doubleOptInFrom) {
    const address = mailboxOf(input.doubleOptInFrom, 'doubleOptInFrom').address
    await senderDomain(db, projectId, address).catch(() => {
      throw invalid('doubleOptInFrom', 'must be an address on a verified domain of this project')
    })
  }
  if (next.enabled && next.from === null && (input.doubleOptInEnabled !== undefined || input.doubleOptInFrom !== undefined) && !(await defaultSenderOf(db, projectId))) {
    throw invalid('doubleOptInFrom', "is needed while double opt-in is enabled: this project has no default sender to send the confirmation from (set one with PATCH /api/v1/project {defaultSender})")
  }
  if (input.doubleOptInSubject !== undefined) checkSubject(input.doubleOptInSubject, 'doubleOptInSubject')
  if (next.enabled && !next.content.includes(OPT_IN_URL)) {
    throw invalid('doubleOptInContent', `must contain ${OPT_IN_URL}, the link that confirms the subscription, while double opt-in is enabled`)
  }
  return next
}

export async function createBook(db: Db, projectId: number, input: BookInput, now: number) {
  const doubleOptIn = await nextOptIn(db, projectId, DEFAULT_OPT_IN, input)
  const meta: BookMeta = { book: true, emoji: input.emoji ?? '📙', properties: input.properties ?? {}, variables: input.variables ?? [], doubleOptIn }
  const segment = await createSegment(db, projectId, { name: input.name, type: 'STATIC' }, now, meta)
  return getBook(db, projectId, segment.id)
}

export async function getBook(db: Db, projectId: number, id: string) {
  const { row, meta } = await requireBook(db, projectId, id)
  return toBook(db, row, meta)
}

export async function listBooks(db: Db, projectId: number) {
  const rows = (await repo.listSegments(db, projectId)).filter((row) => metaOf(row))
  return Promise.all(rows.map((row) => toBook(db, row, metaOf(row)!)))
}

export async function updateBook(db: Db, projectId: number, id: string, patch: Partial<BookInput>, now: number) {
  const { meta } = await requireBook(db, projectId, id)
  if (patch.name !== undefined && (patch.name.trim() === '' || patch.name.length > 200)) throw invalid('name', 'must be 1 to 200 characters')
  const next: BookMeta = {
    ...meta,
    ...(patch.emoji !== undefined && { emoji: patch.emoji }),
    ...(patch.properties !== undefined && { properties: patch.properties }),
    ...(patch.variables !== undefined && { variables: patch.variables }),
    doubleOptIn: await nextOptIn(db, projectId, optInOf(meta), patch),
  }
  await repo.updateSegment(db, id, { ...(patch.name !== undefined && { name: patch.name.trim() }), meta: JSON.stringify(next), updated_at: now })
  return getBook(db, projectId, id)
}

/** Deletes the book; its contacts stay contacts of the project. */
export async function deleteBook(db: Db, projectId: number, id: string, now: number) {
  await requireBook(db, projectId, id)
  await deleteSegment(db, projectId, id, now)
  return { id, success: true, message: 'Contact book deleted' }
}
