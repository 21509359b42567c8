import { useQuery } from '@tanstack/react-query'
import { useApi } from '../../api/context.tsx'
import { emailsApi, type EmailCheck } from '../../api/emails.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { ErrorState, Loading } from '../../components/States.tsx'

const RESULT: Record<EmailCheck['status'], { label: string; tone: string }> = {
  pass: { label: 'Pass', tone: 'ok' },
  warn: { label: 'Warning', tone: 'warn' },
  fail: { label: 'Fail', tone: 'bad' },
  info: { label: 'Info', tone: 'off' },
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** "5 passed, 1 warning, 0 failed": what the list holds, before the reader scans it. */
function summaryOf(checks: EmailCheck[]): string {
  const count = (status: EmailCheck['status']) => checks.filter((c) => c.status === status).length
  return `${count('pass')} passed, ${plural(count('warn'), 'warning', 'warnings')}, ${count('fail')} failed`
}

/**
 * What a receiving server would check on the message (GET …/checks): DKIM verified against the
 * keys Mailstead holds, and the headers and parts that mailbox providers' sender rules look at.
 */
export function Checks({ emailId, signed }: { emailId: string; signed: boolean }) {
  const { api } = useApi()
  const checks = useQuery({ queryKey: useProjectKey('email', emailId, 'checks', signed), queryFn: () => emailsApi(api).checks(emailId) })
  if (checks.error) return <ErrorState error={checks.error} retry={() => checks.refetch()} />
  if (!checks.data) return <Loading label="Running the checks" />
  const list = checks.data.checks
  return (
    <section className="panel" aria-labelledby="checks-title">
      <div className="section-head">
        <h2 id="checks-title">Receiver checks</h2>
        <span className="muted">{summaryOf(list)}</span>
      </div>
      <p className="field-hint">What a receiving server would check. DKIM is verified against the keys Mailstead holds; DNS is not asked.</p>
      <ul className="check-list" aria-label="Receiver checks">
        {list.map((check, i) => (
          <li key={`${check.id}-${i}`} className="check-item">
            <span className={`badge badge-status badge-${RESULT[check.status].tone}`}>{RESULT[check.status].label}</span>
            <span className="check-text">
              <span className="check-name">{check.name}</span>
              <span className="check-detail">{check.detail}</span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  )
}
