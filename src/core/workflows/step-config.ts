import { checkAddress } from '../../lib/address.ts'
import { invalid } from '../../lib/errors.ts'
import { checkContactData } from '../contacts/contact.ts'
import { checkSubject } from '../templates/subject.ts'
import { mailboxOf } from '../emails/mailbox.ts'
import { checkCondition } from '../segments/condition.ts'
import { checkWorkflowEvent } from './trigger.ts'
import type { DelayUnit, SendEmailConfig, Step, StepType, WebhookConfig } from './workflow.ts'

/*
 * The configuration of each type of step, checked and normalized. Pure: whether a sender's domain
 * is verified or a template exists is the service's to check.
 */

export const UNIT_MS: Record<DelayUnit, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 }

/** The longest a run may be held by one step: a delay or a wait for an event. */
export const YEAR_MS = 365 * UNIT_MS.days

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

type Json = Record<string, unknown>
type Check = (config: Json, path: string) => Step['config']

const SHAPES: Record<StepType, { keys: string[]; shape: string; check: Check }> = {
  SEND_EMAIL: { keys: ['templateId', 'subject', 'body', 'from', 'transactional'], shape: '{templateId | subject + body, from, transactional?}', check: checkSendEmail },
  DELAY: { keys: ['amount', 'unit'], shape: '{amount, unit}', check: checkDelay },
  WAIT_FOR_EVENT: { keys: ['eventName', 'timeoutSeconds'], shape: '{eventName, timeoutSeconds}', check: checkWait },
  CONDITION: { keys: ['condition'], shape: '{condition}', check: (config, path) => ({ condition: checkCondition(config.condition, `${path}.condition`) }) },
  UPDATE_CONTACT: { keys: ['data', 'subscribed'], shape: '{data?, subscribed?}', check: checkUpdate },
  WEBHOOK: { keys: ['url', 'method', 'headers', 'body'], shape: '{url, method, headers?, body?}', check: checkWebhook },
  EXIT: { keys: [], shape: '{}', check: () => ({}) },
}

/** A step's config for its type, checked; `path` names the config (`steps[2].config`). */
export function checkStepConfig(type: StepType, input: unknown, path: string): Step['config'] {
  const { keys, shape, check } = SHAPES[type]
  const config = type === 'EXIT' && (input === undefined || input === null) ? {} : input
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw invalid(path, `must be an object ${shape} for a ${type} step`)
  const unknown = Object.keys(config).find((key) => !keys.includes(key))
  if (unknown !== undefined) throw invalid(`${path}.${unknown}`, `is not part of a ${type} step's config ${shape}`)
  return check(config as Json, path)
}

const given = (value: unknown) => value !== undefined && value !== null

function checkSendEmail(config: Json, path: string): SendEmailConfig {
  const from = checkSender(config.from, `${path}.from`)
  if (given(config.transactional) && typeof config.transactional !== 'boolean') throw invalid(`${path}.transactional`, 'must be true or false')
  const stream = config.transactional === true ? { transactional: true } : {}
  if (given(config.templateId)) {
    if (typeof config.templateId !== 'string' || config.templateId === '') throw invalid(`${path}.templateId`, 'must be the id of a template')
    const extra = ['subject', 'body'].find((key) => given(config[key]))
    if (extra) throw invalid(`${path}.${extra}`, 'give a templateId, or a subject and body, not both')
    return { templateId: config.templateId, from, ...stream }
  }
  if (!given(config.subject) && !given(config.body)) throw invalid(path, 'give a templateId, or a subject and body')
  if (typeof config.subject !== 'string') throw invalid(`${path}.subject`, 'must be one line of 1 to 998 characters')
  checkSubject(config.subject, `${path}.subject`)
  if (typeof config.body !== 'string' || config.body.trim() === '') throw invalid(`${path}.body`, 'must be the HTML body of the email')
  return { subject: config.subject, body: config.body, from, ...stream }
}

/** A sender, `address` or `Name <address>`, read as the send APIs read it, with its address checked. */
function checkSender(input: unknown, path: string): string {
  if (typeof input !== 'string' || input.trim() === '') throw invalid(path, 'is required: `address` or `Name <address>`')
  const { address, name } = mailboxOf(input.trim(), path)
  const checked = checkAddress(address)
  if (!checked.ok) throw invalid(path, `must be \`address\` or \`Name <address>\`: ${checked.reason}`)
  if (name && name.length > 200) throw invalid(path, 'the name must be at most 200 characters')
  return input.trim()
}

function checkDelay(config: Json, path: string): Step['config'] {
  const unit = config.unit
  if (typeof unit !== 'string' || !Object.hasOwn(UNIT_MS, unit)) throw invalid(`${path}.unit`, `must be one of ${Object.keys(UNIT_MS).join(', ')}`)
  const amount = config.amount
  if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1) throw invalid(`${path}.amount`, 'must be a whole number of at least 1')
  if (amount * UNIT_MS[unit as DelayUnit] > YEAR_MS) throw invalid(`${path}.amount`, 'a delay is at most a year (365 days)')
  return { amount, unit: unit as DelayUnit }
}

function checkWait(config: Json, path: string): Step['config'] {
  const eventName = checkWorkflowEvent(config.eventName, `${path}.eventName`)
  const timeout = config.timeoutSeconds
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout * 1000 > YEAR_MS) {
    throw invalid(`${path}.timeoutSeconds`, `must be a whole number of seconds from 1 to ${YEAR_MS / 1000} (a year)`)
  }
  return { eventName, timeoutSeconds: timeout }
}

function checkUpdate(config: Json, path: string): Step['config'] {
  if (!given(config.data) && !given(config.subscribed)) throw invalid(path, 'give data, subscribed or both')
  if (given(config.subscribed) && typeof config.subscribed !== 'boolean') throw invalid(`${path}.subscribed`, 'must be true or false')
  if (!given(config.data)) return { subscribed: config.subscribed as boolean }
  const data = config.data
  if (typeof data !== 'object' || Array.isArray(data)) throw invalid(`${path}.data`, 'must be an object of contact data; a null value removes the key')
  checkContactData(data as Json, `${path}.data`)
  return given(config.subscribed) ? { data: data as Json, subscribed: config.subscribed as boolean } : { data: data as Json }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/
/** Set by the request itself, or by Mailstead when it signs it. */
const RESERVED_HEADERS = /^(host|content-length|transfer-encoding|connection|x-mailstead-.*)$/i
// fetch refuses anything else in a header value, at every run: refused here, once, when saved.
const HTTP_HEADER_VALUE = /^[\t\u0020-\u007e\u00a0-\u00ff]*$/
const MAX_BODY_BYTES = 64 * 1024

function checkWebhook(config: Json, path: string): WebhookConfig {
  const url = checkUrl(config.url, `${path}.url`)
  const method = config.method ?? 'POST'
  if (!WEBHOOK_METHODS.includes(method as WebhookConfig['method'])) throw invalid(`${path}.method`, `must be one of ${WEBHOOK_METHODS.join(', ')}`)
  const headers = given(config.headers) ? checkWebhookHeaders(config.headers, `${path}.headers`) : undefined
  if (given(config.body) && method === 'GET') throw invalid(`${path}.body`, 'a GET request has no body')
  if (given(config.body) && Buffer.byteLength(JSON.stringify(config.body)) > MAX_BODY_BYTES) throw invalid(`${path}.body`, 'must be at most 64 KiB as JSON')
  return { url, method: method as WebhookConfig['method'], ...(headers && { headers }), ...(given(config.body) && { body: config.body }) }
}

function checkUrl(input: unknown, path: string): string {
  const url = typeof input === 'string' && input.length <= 2000 ? URL.parse(input.trim()) : null
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw invalid(path, 'must be an http:// or https:// URL of at most 2000 characters')
  return (input as string).trim()
}

function checkWebhookHeaders(input: unknown, path: string): Record<string, string> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid(path, 'must be an object of header names and values')
  const entries = Object.entries(input)
  if (entries.length > 50) throw invalid(path, 'at most 50 headers')
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) throw invalid(`${path}.${name.slice(0, 100)}`, 'is not a valid header name')
    if (RESERVED_HEADERS.test(name)) throw invalid(`${path}.${name}`, 'is set by Mailstead and cannot be given')
    if (typeof value !== 'string' || value.length > 2000 || !HTTP_HEADER_VALUE.test(value)) {
      throw invalid(`${path}.${name}`, 'must be one line of at most 2000 characters of printable Latin-1 text (what an HTTP header carries)')
    }
  }
  return input as Record<string, string>
}
