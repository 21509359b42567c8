import { useQuery } from '@tanstack/react-query'
import { Link } from 'wouter'
import { useApi } from '../api/context.tsx'
import { serverApi, type RelaySettings } from '../api/server.api.ts'
import { CodeBlock } from '../components/CodeBlock.tsx'
import { CopyButton } from '../components/CopyButton.tsx'
import { PageHeader } from '../components/PageHeader.tsx'
import { Empty, ErrorState, Loading } from '../components/States.tsx'
import { loopbackOnly, nodemailerSnippet } from '../lib/relay-view.ts'
import { Card } from '../components/Card.tsx'

const STATE_WORDS = { up: 'listening', down: 'not listening: its port could not be bound (see the log)', off: 'not run by this process' }
const SECURITY_WORDS = { STARTTLS: 'STARTTLS', TLS: 'TLS from the first byte' }

function Facts({ settings }: { settings: RelaySettings }) {
  const megabytes = Math.round(settings.maxMessageBytes / (1024 * 1024))
  return (
    <dl className="facts">
      <dt>Host</dt>
      <dd className="copy-row">
        <code>{settings.host}</code>
        <CopyButton value={settings.host} label="host" />
      </dd>
      <dt>Ports</dt>
      <dd>
        <ul className="plain-list">
          {settings.ports.map((p) => (
            <li key={p.port}>
              <code>{p.port}</code> with {SECURITY_WORDS[p.security]} ({STATE_WORDS[p.state]})
            </li>
          ))}
        </ul>
      </dd>
      <dt>Username</dt>
      <dd>
        Anything, e.g. <code>mailstead</code>
      </dd>
      <dt>Password</dt>
      <dd>
        A secret API key of this project (<code>sk_…</code>): <Link href="/api-keys">create one on the API keys page</Link>.
      </dd>
      <dt>Authentication</dt>
      <dd>
        {settings.authMethods.join(' or ')}, {settings.authBeforeTls ? 'also before TLS (MAILSTEAD_RELAY_ALLOW_INSECURE_AUTH is on: for local development only)' : 'once the connection is encrypted'}.
      </dd>
      <dt>Sender</dt>
      <dd>The envelope sender and the From address must be on a verified domain of this project.</dd>
      <dt>Limits</dt>
      <dd>
        {megabytes} MB a message, {settings.maxRecipients} recipients a message.
      </dd>
    </dl>
  )
}

/** How a legacy application sends through Mailstead over SMTP: the settings and a snippet. */
export default function SmtpRelay() {
  const { api } = useApi()
  const relay = useQuery({ queryKey: ['server', 'relay'], queryFn: serverApi(api).relay })
  const header = <PageHeader title="SMTP relay" description="Applications that only speak SMTP send through Mailstead here, with the same queue, signing and events as the HTTP API." />
  if (relay.error) return <>{header}<ErrorState error={relay.error} retry={() => relay.refetch()} /></>
  if (!relay.data) return <>{header}<Loading label="Loading the relay settings" /></>
  const settings = relay.data
  if (settings.ports.length === 0) {
    return (
      <>
        {header}
        <Empty title="The relay is off on this server.">
          <p>
            Its operator turns it on with <code>MAILSTEAD_RELAY_PORT</code> (587, STARTTLS) or <code>MAILSTEAD_RELAY_TLS_PORT</code> (465, TLS).
          </p>
        </Empty>
      </>
    )
  }
  const snippet = nodemailerSnippet(settings)
  return (
    <>
      {header}
      {loopbackOnly(settings.listenAddress) && (
        <p className="panel panel-notice">
          The relay listens on <code>{settings.listenAddress}</code>: only programs on the server itself can connect. To take connections from other machines, its operator sets{' '}
          <code>MAILSTEAD_SMTP_HOST=0.0.0.0</code>.
        </p>
      )}
      {settings.certificate === 'self-signed' && (
        <p className="panel panel-notice">
          The server has no certificate of its own yet (<code>MAILSTEAD_TLS_CERT</code>): it presents a self-signed one, which clients refuse unless told to trust it.
        </p>
      )}
      <Card title="Settings">
        <Facts settings={settings} />
      </Card>
      <Card title="With nodemailer">
        <CodeBlock code={snippet} label="nodemailer snippet" title="send.js" />
      </Card>
    </>
  )
}
