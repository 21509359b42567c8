import { invalid } from '../../lib/errors.ts'
import { escapeHtml } from '../../lib/html.ts'

/**
 * A sign-up form's shape and its checks, with no database: the fields it asks for and the words
 * of its page. The address is always asked, first; `fields` are what it asks besides.
 */
export interface FormField {
  /** Where the answer goes: firstName, lastName, or a key of the contact's data. */
  key: string
  label: string
  required: boolean
}

export interface FormPage {
  title: string
  description: string
  button: string
  success: string
  /** Where a browser goes once signed up, instead of the success page; http(s) only. */
  redirectUrl: string | null
}

export const DEFAULT_PAGE: FormPage = {
  title: 'Subscribe',
  description: 'Get our news by email.',
  button: 'Subscribe',
  success: 'Thank you for signing up.',
  redirectUrl: null,
}

/** The honeypot: a field a person never sees nor fills; a form posted with it filled is a robot's. */
export const HONEYPOT = 'website'
/** Names a form's fields cannot take: the address, the honeypot, the key and the page's token. */
const RESERVED = new Set(['email', HONEYPOT, 'key', 't'])
export const MAX_FIELDS = 10
/** The longest answer kept of one field. */
export const MAX_ANSWER = 500

const KEY = /^[A-Za-z][A-Za-z0-9_]{0,49}$/

export function checkFields(fields: readonly FormField[]): FormField[] {
  if (fields.length > MAX_FIELDS) throw invalid('fields', `must be at most ${MAX_FIELDS} fields besides the email address`)
  const seen = new Set<string>()
  return fields.map((field, i) => {
    if (!KEY.test(field.key)) throw invalid(`fields[${i}].key`, 'must start with a letter and hold letters, digits and _ (at most 50), for example firstName or company')
    if (RESERVED.has(field.key)) throw invalid(`fields[${i}].key`, `cannot be ${field.key}: the form uses that name itself`)
    if (seen.has(field.key)) throw invalid(`fields[${i}].key`, `is asked twice: ${field.key}`)
    seen.add(field.key)
    const label = field.label.trim()
    if (label.length === 0 || label.length > 100) throw invalid(`fields[${i}].label`, 'must be 1 to 100 characters')
    return { key: field.key, label, required: field.required }
  })
}

const limit = (text: string, max: number, field: string): string => {
  const trimmed = text.trim()
  if (trimmed.length === 0 || trimmed.length > max) throw invalid(field, `must be 1 to ${max} characters`)
  return trimmed
}

export function checkPage(page: FormPage): FormPage {
  if (page.redirectUrl !== null) {
    const url = URL.canParse(page.redirectUrl) ? new URL(page.redirectUrl) : undefined
    if (!url || !/^https?:$/.test(url.protocol)) throw invalid('redirectUrl', 'must be an http or https address, or null for the success page')
  }
  return {
    title: limit(page.title, 100, 'title'),
    description: page.description.trim().length > 1000 ? limit(page.description, 1000, 'description') : page.description.trim(),
    button: limit(page.button, 50, 'buttonLabel'),
    success: limit(page.success, 500, 'successMessage'),
    redirectUrl: page.redirectUrl,
  }
}

/** The answers a post gives to the form's fields: the declared ones, cut to their length; an answer missing from a required field is refused. */
export function answersOf(fields: readonly FormField[], posted: Record<string, unknown>): Record<string, string> {
  const answers: Record<string, string> = {}
  for (const field of fields) {
    const value = posted[field.key]
    const text = typeof value === 'string' ? value.trim().slice(0, MAX_ANSWER) : ''
    if (text === '' && field.required) throw invalid(field.key, `is required (${field.label})`)
    if (text !== '') answers[field.key] = text
  }
  return answers
}

/**
 * The HTML to paste into a site: a plain form that posts to the hosted address, so it needs no
 * script and no CORS. `key` is the project's public key (pk_...), which the snippet carries.
 */
export function embedHtml(action: string, fields: readonly FormField[], page: FormPage, key = 'pk_YOUR_PUBLIC_KEY'): string {
  const inputs = fields.map(
    (field) => `  <label>${escapeHtml(field.label)} <input name="${field.key}" type="text"${field.required ? ' required' : ''}></label>`,
  )
  return [
    `<form method="post" action="${escapeHtml(action)}">`,
    `  <label>Email <input name="email" type="email" required></label>`,
    ...inputs,
    `  <input type="hidden" name="key" value="${escapeHtml(key)}">`,
    `  <input name="${HONEYPOT}" type="text" tabindex="-1" autocomplete="off" aria-hidden="true" style="position:absolute;left:-10000px">`,
    `  <button type="submit">${escapeHtml(page.button)}</button>`,
    `</form>`,
  ].join('\n')
}
