import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Switch } from 'react-aria-components'
import { useApi } from '../api/context.tsx'
import { projectApi, type ProjectSettings } from '../api/project.api.ts'
import { PROJECTS_KEY } from '../app/query-keys.ts'
import { useProjectKey } from '../app/project.tsx'
import { FormErrors } from '../components/FormErrors.tsx'
import { Card } from '../components/Card.tsx'

const HINT =
  'Mail is built, signed and stored but never leaves the server, from any address. The recipient picks the outcome: bounce…@ bounces, complaint…@ is complained about, defer…@ is deferred once, suppressed…@ is suppressed; anything else is delivered.'

/** The project's sandbox switch: owners and admins turn it on or off; others read it. */
export function SandboxPanel({ mayChange }: { mayChange: boolean }) {
  const { api } = useApi()
  const queries = useQueryClient()
  const queryKey = useProjectKey('settings')
  const settings = useQuery({ queryKey, queryFn: projectApi(api).get })
  const change = useMutation({
    mutationFn: (sandbox: boolean) => projectApi(api).update({ sandbox }),
    onSuccess: (saved) => {
      queries.setQueryData(queryKey, (old: ProjectSettings | undefined) => ({ ...old, ...saved }))
      return queries.invalidateQueries({ queryKey: PROJECTS_KEY })
    },
  })
  if (!settings.data) return null
  const on = change.isPending ? change.variables : settings.data.sandbox
  return (
    <Card title="Sandbox">
      {mayChange && <FormErrors error={change.error} fields={[]} />}
      {mayChange ? (
        <Switch className="switch" isSelected={on} isDisabled={change.isPending} onChange={(next) => change.mutate(next)}>
          <span className="switch-track" aria-hidden="true">
            <span className="switch-thumb" />
          </span>
          Sandbox
        </Switch>
      ) : (
        <p>
          Sandbox: <strong>{on ? 'On' : 'Off'}</strong>
        </p>
      )}
      <p className="field-hint">{HINT}</p>
    </Card>
  )
}
