// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { simpleParser } from 'mailparser'
import { makeAccount, PASSWORD, signIn, type Browser } from '../helpers/accounts.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/* An invitation is emailed by the server itself, through its delivery path, to a fake MX found by DNS. */

checkAnswersAgainstDocument()

let w: World
let owner: Browser
let projectId: number

beforeAll(async () => {
  w = await createWorld()
  await makeAccount(w.t, 'owner@example.com')
  owner = await signIn(w.t, 'owner@example.com')
  projectId = (await w.t.request('POST', '/api/v1/account/projects', { headers: owner.headers(), body: { name: 'Shop <&> Co' } })).body.id
})

afterAll(() => w.close())

const invite = (email: string) => w.t.request('POST', '/api/v1/project/invitations', { headers: owner.headers({ project: projectId }), body: { email, role: 'member' } })

describe('an invitation', () => {
  test('arrives at the invitee\'s MX from the system sender, with the link the answer shows; the link accepts it', async () => {
    const answer = await invite('bob@example.net')
    expect(answer.status).toBe(201)
    expect(answer.body.emailed).toEqual({ sent: true, error: null })
    expect(answer.body.link).toContain('/console/invitation?token=')

    const message = w.mx.received.find((m) => m.to.includes('bob@example.net'))!
    expect(message.from).toBe(`mailstead@${HOSTNAME}`)
    const mail = await simpleParser(message.raw)
    expect(mail.from?.value[0]?.address).toBe(`mailstead@${HOSTNAME}`)
    expect(mail.subject).toBe('owner@example.com invited you to Shop <&> Co on Mailstead')
    expect(mail.text).toContain(answer.body.link)
    expect(mail.html).toContain('Shop &lt;&amp;&gt; Co')
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated')

    const link = /https?:\/\/\S+\/console\/invitation\?token=\S+/.exec(mail.text ?? '')![0]
    const token = new URL(link).searchParams.get('token')!
    const accepted = await w.t.request('POST', '/api/v1/invitations/accept', { body: { token, password: PASSWORD } })
    expect(accepted.status).toBe(200)
    expect(accepted.body).toMatchObject({ projectId, role: 'member' })
  })

  test('that cannot be delivered is still made, its link shown, and the answer says why it was not sent', async () => {
    // example.org has no mail server in this world's DNS.
    const answer = await invite('carol@example.org')
    expect(answer.status).toBe(201)
    expect(answer.body.emailed.sent).toBe(false)
    expect(answer.body.emailed.error).toContain('example.org')
    expect(answer.body.link).toContain('token=')
    const listed = await w.t.request('GET', '/api/v1/project/invitations', { headers: owner.headers({ project: projectId }) })
    expect(listed.body.map((i: { email: string }) => i.email)).toContain('carol@example.org')
  })
})
