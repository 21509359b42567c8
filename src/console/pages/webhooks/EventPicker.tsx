import type { ReactNode } from 'react'
import { Checkbox, CheckboxGroup, FieldError, Label, Text } from 'react-aria-components'
import { ALL_EVENTS, EVENT_GROUPS } from '../../lib/webhooks-view.ts'

function Tick({ value, children, isDisabled }: { value: string; children: ReactNode; isDisabled?: boolean }) {
  return (
    <Checkbox value={value} className="checkbox" isDisabled={isDisabled}>
      <span className="checkbox-box" aria-hidden="true">
        <svg viewBox="0 0 18 18">
          <polyline points="2 9.5 7 14 16 4" />
        </svg>
      </span>
      <span>{children}</span>
    </Checkbox>
  )
}

/**
 * The event types a webhook takes: all of them (those added later too), or those ticked, grouped
 * by what they are about. The API's message for `events` is shown under it.
 */
export function EventPicker({ value, onChange, error }: { value: string[]; onChange: (value: string[]) => void; error?: string }) {
  const all = value.includes(ALL_EVENTS)
  return (
    <CheckboxGroup value={value} onChange={onChange} isInvalid={error !== undefined} validationBehavior="aria" className="event-picker">
      <Label className="field-label">Events</Label>
      <Text slot="description" className="field-hint">
        What the endpoint is told of. Each event is POSTed as JSON, signed with the webhook’s secret.
      </Text>
      <Tick value={ALL_EVENTS}>All events, those added later too</Tick>
      <div className="event-groups">
        {EVENT_GROUPS.map((group) => (
          <fieldset key={group.name} className="event-group" disabled={all}>
            <legend>{group.name}</legend>
            {group.types.map((type) => (
              <Tick key={type} value={type} isDisabled={all}>
                <code>{type}</code>
              </Tick>
            ))}
          </fieldset>
        ))}
      </div>
      <FieldError className="field-error">{error}</FieldError>
    </CheckboxGroup>
  )
}
