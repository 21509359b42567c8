// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Plunk from '@plunk/node'
import { UseSend } from 'usesend-js'
import { receivedBy } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World

beforeAll(async () => {
  w = await createWorld({ started: true })
})

afterAll(() => w.close())

/** Plunk's and useSend's own client libraries, pointed at this server, work unchanged. */
describe('client libraries', () => {
  test('@plunk/node tracks events and sends email', async () => {
    const plunk = new Plunk(w.key, { baseUrl: `${w.t.app.url}/v1/` })
    expect(await plunk.events.track({ email: 'plunk-user@example.net', event: 'signup', data: { plan: 'pro' } })).toMatchObject({ success: true })
    expect(await plunk.emails.send({ to: 'plunk-user@example.net', subject: 'From Plunk', body: '<p>Hi</p>', from: 'app@sender.example.com' })).toMatchObject({ success: true })
    await w.deliver()
    expect(receivedBy(w, 'plunk-user@example.net').headers.subject).toBe('From Plunk')
    const markdown = await plunk.emails.send({ to: 'plunk-md@example.net', subject: 'Markdown', body: '# Hi *there*', type: 'markdown', from: 'app@sender.example.com' })
    const email = (await w.t.request('GET', `/api/v1/emails/${(markdown as unknown as { data: { emails: Array<{ email: string }> } }).data.emails[0]!.email}`, { key: w.key })).body
    expect(email.html).toBe('<h1>Hi <em>there</em></h1>\n')
    const contact = (await w.t.request('GET', '/contacts?search=plunk-user', { key: w.key })).body.contacts[0]
    expect(contact.data.plan).toBe('pro')
  })

  test('usesend-js sends email, reads it back, and manages contact books and campaigns', async () => {
    const usesend = new UseSend(w.key, w.t.app.url)
    const sent = await usesend.emails.send({ from: 'app@sender.example.com', to: 'usesend-user@example.net', subject: 'From useSend', html: '<p>Hi</p>' })
    expect(sent.error).toBeNull()
    await w.deliver()
    expect(receivedBy(w, 'usesend-user@example.net').headers.subject).toBe('From useSend')
    const email = await usesend.emails.get(sent.data!.emailId!)
    expect(email.data).toMatchObject({ id: sent.data!.emailId, subject: 'From useSend' })

    const book = await usesend.contactBooks.create({ name: 'Readers' })
    expect(book.error).toBeNull()
    const added = await usesend.contacts.create(book.data!.id, { email: 'reader@example.net', firstName: 'Rea' })
    expect(added.error).toBeNull()
    const campaign = await usesend.campaigns.create({ name: 'Hello', from: 'app@sender.example.com', subject: 'Hi {{firstName}}', contactBookId: book.data!.id, html: '<p>Hi</p>' })
    expect(campaign.error).toBeNull()
    expect(campaign.data).toMatchObject({ status: 'DRAFT', total: 1 })
    const got = await usesend.campaigns.get(campaign.data!.id)
    expect(got.data).toMatchObject({ id: campaign.data!.id, name: 'Hello' })
  })
})
