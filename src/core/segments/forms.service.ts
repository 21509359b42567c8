import type { Db } from '../../db/schema.ts'
import { requireAddress } from '../../lib/address.ts'
import { isoTime } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { signToken, verifyToken } from '../../lib/signed.ts'
import { addToList, prepareListOptIns } from './book-contacts.service.ts'
import { requireList } from './contact-books.service.ts'
import { answersOf, checkFields, checkPage, DEFAULT_PAGE, embedHtml, HONEYPOT, type FormField, type FormPage } from './form.ts'
import * as repo from './forms.repository.ts'
import type { ConsentClient, OptInMail, PreparedOptIns } from './opt-in.service.ts'

const PAGE_PURPOSE = 'form-page'

export interface FormInput {
  name: string
  /** The contact book or static segment that lists who signs up. */
  contactBookId: string
  fields?: FormField[]
  title?: string
  description?: string
  buttonLabel?: string
  successMessage?: string
  redirectUrl?: string | null
  enabled?: boolean
}

const pageOf = (row: repo.FormRow): FormPage => ({ ...DEFAULT_PAGE, ...JSON.parse(row.page) })
const fieldsOf = (row: repo.FormRow): FormField[] => JSON.parse(row.fields)

/** The hosted page's address: /f/<id>, under the server's public base. */
export const formUrl = (baseUrl: string, id: string) => `${baseUrl}/f/${id}`

/** What the hosted page carries so that its posts need no key: the form's id, signed. */
export const formPageToken = (secret: string, id: string) => signToken(secret, PAGE_PURPOSE, id.replaceAll('-', ''))
export const isFormPageToken = (secret: string, id: string, token: string) => token.length < 200 && verifyToken(secret, PAGE_PURPOSE, token) === id.replaceAll('-', '')

async function toForm(db: Db, row: repo.FormRow, baseUrl: string) {
  const list = await requireList(db, row.project_id, row.segment_id, 'contactBookId')
  const page = pageOf(row)
  const fields = fieldsOf(row)
  return {
    id: row.id,
    name: row.name,
    contactBookId: row.segment_id,
    listName: list.row.name,
    doubleOptIn: list.optIn.enabled,
    fields,
    title: page.title,
    description: page.description,
    buttonLabel: page.button,
    successMessage: page.success,
    redirectUrl: page.redirectUrl,
    enabled: row.enabled === 1,
    hostedUrl: formUrl(baseUrl, row.id),
    embedHtml: embedHtml(formUrl(baseUrl, row.id), fields, page),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  }
}

export type SignupForm = Awaited<ReturnType<typeof toForm>>

const nameOf = (name: string) => checkPage({ ...DEFAULT_PAGE, title: name }).title

export async function createForm(db: Db, projectId: number, input: FormInput, baseUrl: string, now: number) {
  await requireList(db, projectId, input.contactBookId, 'contactBookId')
  const page = checkPage({
    title: input.title ?? DEFAULT_PAGE.title,
    description: input.description ?? DEFAULT_PAGE.description,
    button: input.buttonLabel ?? DEFAULT_PAGE.button,
    success: input.successMessage ?? DEFAULT_PAGE.success,
    redirectUrl: input.redirectUrl ?? null,
  })
  const row = await repo.insertForm(db, {
    id: newId(),
    project_id: projectId,
    segment_id: input.contactBookId,
    name: nameOf(input.name),
    fields: JSON.stringify(checkFields(input.fields ?? [])),
    page: JSON.stringify(page),
    enabled: input.enabled === false ? 0 : 1,
    created_at: now,
    updated_at: now,
  })
  return toForm(db, row, baseUrl)
}

async function requireForm(db: Db, projectId: number, id: string) {
  const row = await repo.findForm(db, projectId, id)
  if (!row) throw notFound('Form')
  return row
}

export const getForm = async (db: Db, projectId: number, id: string, baseUrl: string) => toForm(db, await requireForm(db, projectId, id), baseUrl)

export async function listForms(db: Db, projectId: number, baseUrl: string) {
  const rows = await repo.listForms(db, projectId)
  return { data: await Promise.all(rows.map((row) => toForm(db, row, baseUrl))) }
}

export async function updateForm(db: Db, projectId: number, id: string, patch: Partial<FormInput>, baseUrl: string, now: number) {
  const row = await requireForm(db, projectId, id)
  if (patch.contactBookId !== undefined) await requireList(db, projectId, patch.contactBookId, 'contactBookId')
  const current = pageOf(row)
  const page = checkPage({
    title: patch.title ?? current.title,
    description: patch.description ?? current.description,
    button: patch.buttonLabel ?? current.button,
    success: patch.successMessage ?? current.success,
    redirectUrl: patch.redirectUrl !== undefined ? patch.redirectUrl : current.redirectUrl,
  })
  const updated = await repo.updateForm(db, id, {
    ...(patch.name !== undefined && { name: nameOf(patch.name) }),
    ...(patch.contactBookId !== undefined && { segment_id: patch.contactBookId }),
    ...(patch.fields !== undefined && { fields: JSON.stringify(checkFields(patch.fields)) }),
    ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
    page: JSON.stringify(page),
    updated_at: now,
  })
  return toForm(db, updated, baseUrl)
}

export async function deleteForm(db: Db, projectId: number, id: string) {
  const result = await repo.deleteForm(db, projectId, id)
  if (Number(result.numDeletedRows) === 0) throw notFound('Form')
  return { id, deleted: true }
}

/** A form as its public page shows it; undefined for an unknown or disabled one. */
export async function publicForm(db: Db, id: string) {
  const row = /^[0-9a-f-]{36}$/i.test(id) ? await repo.findFormById(db, id) : undefined
  if (!row || row.enabled !== 1) return undefined
  return { id: row.id, projectId: row.project_id, listId: row.segment_id, fields: fieldsOf(row), page: pageOf(row) }
}

/** A post whose honeypot is filled: a robot's. */
const byRobot = (posted: Record<string, unknown>) => typeof posted[HONEYPOT] === 'string' && posted[HONEYPOT].trim() !== ''

export type PublicForm = NonNullable<Awaited<ReturnType<typeof publicForm>>>

/**
 * One person's post of the form: a filled honeypot is answered as a success and writes nothing;
 * otherwise the contact is written with its answers and listed, or sent a confirmation while the
 * book asks for double opt-in. Its consent keeps the client and the form's title.
 */
export async function submitForm(db: Db, form: PublicForm, posted: Record<string, unknown>, client: ConsentClient, mail: OptInMail, now: number, prepared?: PreparedOptIns) {
  if (byRobot(posted)) return { kind: 'ignored' as const }
  const email = typeof posted.email === 'string' ? posted.email.trim() : ''
  const address = requireAddress(email, 'email')
  const answers = answersOf(form.fields, posted)
  const list = await requireList(db, form.projectId, form.listId, 'contactBookId')
  const { firstName, lastName, ...properties } = answers
  await addToList(db, form.projectId, list, [{ email: address.address, firstName, lastName, properties }], { method: 'form', form: form.page.title, ...client }, mail, now, () => '', prepared)
  return { kind: list.optIn.enabled ? ('pending' as const) : ('listed' as const) }
}

/** Before the write transaction: the confirmation this post may send (see prepareListOptIns). */
export async function prepareSubmission(db: Db, form: PublicForm, posted: Record<string, unknown>, mail: OptInMail, now: number) {
  if (typeof posted.email !== 'string' || byRobot(posted)) return undefined
  return prepareListOptIns(db, form.projectId, form.listId, [{ email: posted.email.trim() }], mail, now)
}
