import { t } from 'elysia'

/** What DMARC aggregate reports count, per day, source or domain. */
export const DmarcCounts = {
  messages: t.Integer(),
  dmarcPass: t.Integer({ description: 'Messages that passed DMARC: DKIM or SPF aligned with the From domain' }),
  dkimAligned: t.Integer(),
  spfAligned: t.Integer(),
  dkimPass: t.Integer({ description: 'Messages whose DKIM passed, aligned or not' }),
  spfPass: t.Integer({ description: 'Messages whose SPF passed, aligned or not' }),
  quarantined: t.Integer(),
  rejected: t.Integer(),
}

export const DmarcDateQuery = (name: string, description: string) =>
  t.Optional(t.String({ maxLength: 40, description, error: 'must be a date as YYYY-MM-DD', 'x-field': name }))
