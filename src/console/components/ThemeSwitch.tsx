import { useState } from 'react'
import { Label, Radio, RadioGroup } from 'react-aria-components'
import { applyThemeChoice, readThemeChoice, THEME_CHOICES, type ThemeChoice } from '../lib/theme.ts'

/** System, Light or Dark: applied at once and remembered in this browser. */
export function ThemeSwitch() {
  const [choice, setChoice] = useState<ThemeChoice>(readThemeChoice)
  return (
    <RadioGroup
      value={choice}
      onChange={(value) => {
        const next = value as ThemeChoice
        applyThemeChoice(next)
        setChoice(next)
      }}
      orientation="horizontal"
      className="theme-switch"
    >
      <Label className="theme-switch-label">Theme</Label>
      <div className="segmented segmented-small">
        {THEME_CHOICES.map((option) => (
          <Radio key={option.id} value={option.id} className="segment">
            {option.label}
          </Radio>
        ))}
      </div>
    </RadioGroup>
  )
}
