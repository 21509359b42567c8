import { t } from 'elysia'

export const AccountSchema = t.Object({
  id: t.String(),
  email: t.String(),
  disabled: t.Boolean(),
  passwordSet: t.Boolean(),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Account' })

export const PasswordField = t.String({ maxLength: 256, description: 'At least 10 characters' })

export const ROLE_VALUES = ['owner', 'admin', 'member', 'viewer'] as const
