import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Button } from 'react-aria-components'
import { Link } from 'wouter'
import { useApi } from '../../api/context.tsx'
import { overviewApi } from '../../api/overview.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { Card } from '../../components/Card.tsx'
import { ErrorState } from '../../components/States.tsx'
import { allDone, dismissedKey, gettingStartedSteps, type Step } from '../../lib/get-started.ts'
import { maySend, SendTestEmail } from '../email/SendTestEmail.tsx'

function StepItem({ step, role }: { step: Step; role: string }) {
  return (
    <li className={step.done ? 'step step-done' : 'step'}>
      <span className="step-mark" aria-hidden="true">
        {step.done ? '✓' : ''}
      </span>
      <div className="step-text">
        <p className="step-title">
          {step.title}
          <span className="visually-hidden">{step.done ? ': done' : ': to do'}</span>
        </p>
        <p className="step-detail">{step.detail}</p>
      </div>
      {!step.done && (
        <div className="step-action">
          {step.id === 'email' && maySend(role) ? (
            <SendTestEmail small />
          ) : (
            <Link href={step.href} className="button button-small">
              {step.action}
            </Link>
          )}
        </div>
      )}
    </li>
  )
}

/** Whether the project's Get started card was dismissed in this browser, and a way to dismiss it (kept in localStorage). */
export function useGetStartedDismissed(projectId: number): [boolean, (dismissed: true) => void] {
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(dismissedKey(projectId)) === 'true')
  const [forProject, setForProject] = useState(projectId)
  if (forProject !== projectId) {
    setForProject(projectId)
    setDismissed(localStorage.getItem(dismissedKey(projectId)) === 'true')
  }
  return [
    dismissed,
    () => {
      localStorage.setItem(dismissedKey(projectId), 'true')
      setDismissed(true)
    },
  ]
}

/**
 * A new project's first steps, each done or not as the project's lists say (a verified domain, or
 * a sandbox; an API key; an email; a webhook), with where to do it. Gone once all are done, or
 * once dismissed (remembered in this browser, per project). Nothing shows while it loads: a
 * project set up long ago never sees it flash.
 */
export function GetStarted({ onDismiss }: { onDismiss: () => void }) {
  const { api } = useApi()
  const { project } = useProject()
  const calls = overviewApi(api)
  const domains = useQuery({ queryKey: useProjectKey('domains'), queryFn: calls.domains })
  const keys = useQuery({ queryKey: useProjectKey('keys', 'count'), queryFn: calls.keyCount })
  const emails = useQuery({ queryKey: useProjectKey('emails', 'count'), queryFn: calls.emailCount })
  const webhooks = useQuery({ queryKey: useProjectKey('webhooks', 'total'), queryFn: calls.webhookCount })
  const queries = [domains, keys, emails, webhooks]
  const failed = queries.find((q) => q.error && q.data === undefined)
  if (failed) {
    return (
      <Card title="Get started">
        <ErrorState error={failed.error} retry={() => queries.forEach((q) => q.error && q.refetch())} />
      </Card>
    )
  }
  if (domains.data === undefined || keys.data === undefined || emails.data === undefined || webhooks.data === undefined) return null
  const steps = gettingStartedSteps({
    sandbox: project.sandbox,
    verifiedDomains: domains.data.filter((d) => d.status === 'SUCCESS').map((d) => d.name),
    keys: keys.data,
    emails: emails.data,
    webhooks: webhooks.data,
  })
  if (allDone(steps)) return null
  const done = steps.filter((step) => step.done).length
  return (
    <Card
      title="Get started"
      description={`${done} of ${steps.length} done. Each step is ticked as the project reaches it.`}
      actions={
        <Button className="button button-small button-ghost" onPress={onDismiss}>
          Dismiss
        </Button>
      }
      className="get-started"
    >
      <ol className="steps" aria-label="Steps">
        {steps.map((step) => (
          <StepItem key={step.id} step={step} role={project.role} />
        ))}
      </ol>
    </Card>
  )
}
