/**
 * The Overview's "Get started" checklist, decided without the DOM: each step's state from what the
 * project's list endpoints answer, and whether the card is shown (not once every step is done, nor
 * once dismissed in this browser, remembered per project).
 */

export interface ProjectFacts {
  sandbox: boolean
  /** Names of the project's verified domains. */
  verifiedDomains: string[]
  keys: number
  emails: number
  webhooks: number
}

export type StepId = 'domain' | 'key' | 'email' | 'webhook'

export interface Step {
  id: StepId
  title: string
  done: boolean
  /** What is there, or what to do. */
  detail: string
  /** Where to do it (under /console). */
  href: string
  /** The link's words. */
  action: string
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`

export function gettingStartedSteps(facts: ProjectFacts): Step[] {
  const [first, ...more] = facts.verifiedDomains
  const domain: Step = facts.sandbox
    ? { id: 'domain', title: 'Sandbox project: no domain needed', done: true, detail: 'Its mail is simulated and never leaves the server, so it is sent from any address.', href: '/domains', action: 'Open the domains' }
    : {
        id: 'domain',
        title: 'Verify a sending domain',
        done: first !== undefined,
        detail: first === undefined ? 'Add a domain and publish its DNS records; mail is sent from a verified domain.' : `${first}${more.length ? ` and ${count(more.length, 'other', 'others')}` : ''} verified.`,
        href: '/domains',
        action: 'Add a domain',
      }
  return [
    domain,
    {
      id: 'key',
      title: 'Create an API key',
      done: facts.keys > 0,
      detail: facts.keys > 0 ? `${count(facts.keys, 'key', 'keys')} made.` : 'Your application sends with a secret key.',
      href: '/api-keys',
      action: 'Create a key',
    },
    {
      id: 'email',
      title: 'Send your first email',
      done: facts.emails > 0,
      detail: facts.emails > 0 ? `${count(facts.emails, 'email', 'emails')} sent.` : 'Send a test email from here, or with POST /api/v1/emails.',
      href: '/emails',
      action: 'Open the emails',
    },
    {
      id: 'webhook',
      title: 'Add a webhook',
      done: facts.webhooks > 0,
      detail: facts.webhooks > 0 ? `${count(facts.webhooks, 'endpoint', 'endpoints')} told of events.` : 'Be told when mail is delivered, bounces or is complained about.',
      href: '/webhooks',
      action: 'Add a webhook',
    },
  ]
}

/** Where this browser remembers that the checklist of a project was dismissed. */
export const dismissedKey = (projectId: number) => `mailstead.get-started.dismissed.${projectId}`

export const allDone = (steps: readonly Step[]) => steps.every((step) => step.done)
