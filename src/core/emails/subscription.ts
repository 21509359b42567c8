// The subscription of an email's recipient: what its unsubscribe page shows and what a click, a
// one-click POST or a mail to its unsubscribe address changes, through the recipient's contact.
import addressparser from 'nodemailer/lib/addressparser'
import type { ContactRow, Db } from '../../db/schema.ts'
import { checkAddress } from '../../lib/address.ts'
import { findContact, findContactByKey, updateContact } from '../contacts/index.ts'
import { projectRows } from '../projects/index.ts'
import { subscriptionChanged } from '../reactions.ts'
import { emailRows } from './email-queries.ts'

/** How the recipient asked: the page's button, a mail client's one-click POST, or a mail. */
export type SubscriptionSource = 'link' | 'one-click' | 'mail'

/** Where the recipient of one email stands, for the unsubscribe page. */
export interface Subscription {
  projectId: number
  projectName: string
  /** The project's colour for the page, #rrggbb, or null. */
  brandColor: string | null
  /** The contact's address, else the address the email went to. */
  address: string
  /** Without a contact there is nothing to unsubscribe: such a recipient is on no list. */
  contactId: string | null
  subscribed: boolean
}

/** The recipient of an email and their subscription; undefined when no email has this id. */
export async function subscriptionOf(db: Db, emailId: string): Promise<Subscription | undefined> {
  const email = await db
    .selectFrom(emailRows(db).as('emails'))
    .innerJoin(projectRows(db).as('projects'), 'projects.id', 'emails.project_id')
    .select(['emails.project_id', 'emails.contact_id', 'emails.recipients', 'projects.name', 'projects.brand_color'])
    .where('emails.id', '=', emailId)
    .executeTakeFirst()
  if (!email) return undefined
  const firstTo = firstAddress(JSON.parse(email.recipients).to ?? [])
  const contact = await contactOf(db, email.project_id, email.contact_id, firstTo)
  return {
    projectId: email.project_id,
    projectName: email.name,
    brandColor: email.brand_color,
    address: contact?.email ?? firstTo ?? '',
    contactId: contact?.id ?? null,
    subscribed: contact ? contact.subscribed === 1 : true,
  }
}

/**
 * Subscribes or unsubscribes the recipient of an email, in the caller's transaction. A change is
 * recorded as `contact.subscribed` or `contact.unsubscribed`, and an unsubscription counts once
 * for the email's campaign; tracked segments see the change at once. Asking for what already
 * holds changes nothing.
 */
export async function setSubscription(
  db: Db,
  emailId: string,
  subscribed: boolean,
  source: SubscriptionSource,
  now: number,
): Promise<(Subscription & { changed: boolean }) | undefined> {
  const subscription = await subscriptionOf(db, emailId)
  if (!subscription) return undefined
  if (!subscription.contactId || subscription.subscribed === subscribed) return { ...subscription, changed: false }
  const contact = await updateContact(db, subscription.contactId, { subscribed }, now)
  // Its subscription is all this changed.
  await subscriptionChanged(db, emailId, { before: { ...contact, subscribed: subscribed ? 0 : 1 }, after: contact }, source, now)
  return { ...subscription, subscribed, changed: true }
}

/** The email's own contact, else the project's contact with the address it was sent to. */
async function contactOf(db: Db, projectId: number, contactId: string | null, address: string | undefined): Promise<ContactRow | undefined> {
  const own = contactId ? await findContact(db, projectId, contactId) : undefined
  if (own || address === undefined) return own
  const checked = checkAddress(address)
  return checked.ok ? findContactByKey(db, projectId, checked.value.key) : undefined
}

/** The address of the first of an email's `to` entries, which may carry a display name. */
function firstAddress(to: string[]): string | undefined {
  const [first] = to.length > 0 ? addressparser(to[0]!, { flatten: true }) : []
  return first?.address || undefined
}
