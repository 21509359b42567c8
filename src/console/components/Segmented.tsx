import { Label, Radio, RadioGroup } from 'react-aria-components'

/**
 * One choice of a few shown side by side (a range of time, a period): radio buttons drawn as a
 * segmented control, named by `label` for screen readers.
 */
export function Segmented<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: readonly { id: T; label: string }[]; onChange: (value: T) => void }) {
  return (
    <RadioGroup value={value} onChange={(chosen) => onChange(chosen as T)} orientation="horizontal" className="segmented">
      <Label className="visually-hidden">{label}</Label>
      {options.map((option) => (
        <Radio key={option.id} value={option.id} className="segment">
          {option.label}
        </Radio>
      ))}
    </RadioGroup>
  )
}
