import { t } from 'elysia'

export const AccountSchema = t.Object({
  id: t.String(),
  email: t.String(),
  disabled: t.Boolean(),
  passwordSet: t.Boolean(),
  instanceOwner: t.Boolean({ description: "The server's operator: sees every project and acts as its owner (the first account, or one the CLI made so)" }),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Account' })

export const PasswordField = t.String({ maxLength: 256, description: 'At least 10 characters' })

export const ROLE_VALUES = ['owner', 'admin', 'member', 'viewer'] as const
