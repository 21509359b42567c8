import { Field } from '../../components/Field.tsx'
import { fieldError } from '../../components/FormErrors.tsx'

/** The account's current password, which every change to how it signs in asks for. */
export function CurrentPasswordField({ error }: { error: unknown }) {
  return <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" isRequired error={fieldError(error, 'currentPassword')} />
}
