import type { ReactNode } from 'react'
import { FieldError, Input, Label, Text, TextArea, TextField, type TextFieldProps } from 'react-aria-components'

interface FieldProps extends Omit<TextFieldProps, 'children' | 'isInvalid'> {
  label: string
  /** The API's message for this field, shown under it. */
  error?: string
  description?: ReactNode
  placeholder?: string
  /** A text of several lines (a message's body): a text area of this many rows. */
  rows?: number
}

/** A text input with its visible label, an optional hint and the API's error beside it. */
export function Field({ label, error, description, placeholder, rows, className, ...props }: FieldProps) {
  return (
    <TextField {...props} isInvalid={error !== undefined} validationBehavior="aria" className={['field', className].filter(Boolean).join(' ')}>
      <Label className="field-label">{label}</Label>
      {rows ? <TextArea className="input textarea" rows={rows} placeholder={placeholder} /> : <Input className="input" placeholder={placeholder} />}
      {description && (
        <Text slot="description" className="field-hint">
          {description}
        </Text>
      )}
      <FieldError className="field-error">{error}</FieldError>
    </TextField>
  )
}
