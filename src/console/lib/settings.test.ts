import { expect, test } from 'bun:test'
import { settingsChange } from './settings.ts'

const form = (values: Record<string, string>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(values)) data.set(name, value)
  return data
}

test('the settings form: trimmed, empty sender and rate are null, a rate is a number', () => {
  expect(settingsChange(form({ name: ' Shop ', defaultSender: '', sendRatePerSecond: '' }))).toEqual({ name: 'Shop', defaultSender: null, sendRatePerSecond: null })
  expect(settingsChange(form({ name: 'Shop', defaultSender: 'ada@example.com ', sendRatePerSecond: '12' }))).toEqual({ name: 'Shop', defaultSender: 'ada@example.com', sendRatePerSecond: 12 })
})

test('a rate that is not a whole number goes as typed, for the API to name the field', () => {
  expect(settingsChange(form({ name: 'Shop', sendRatePerSecond: '1.5' })).sendRatePerSecond as unknown).toBe('1.5')
})
