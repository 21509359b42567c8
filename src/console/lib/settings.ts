import type { SettingsChange } from '../api/project.api.ts'

/** The fields of the settings form, as the API names them. */
export const SETTINGS_FIELDS = ['name', 'defaultSender', 'sendRatePerSecond'] as const

/**
 * PATCH /api/v1/project's body from the settings form: an empty sender or rate is null (none, and
 * the server's rate). A rate that is not a number is sent as typed, for the API to say what it
 * wants beside the field.
 */
export function settingsChange(form: FormData): SettingsChange {
  const text = (name: string) => String(form.get(name) ?? '').trim()
  const sender = text('defaultSender')
  const rate = text('sendRatePerSecond')
  return {
    name: text('name'),
    defaultSender: sender === '' ? null : sender,
    sendRatePerSecond: rate === '' ? null : /^[0-9]+$/.test(rate) ? Number(rate) : (rate as unknown as number),
  }
}
