import { useState } from 'react'
import { Button } from 'react-aria-components'
import { useApi } from '../../api/context.tsx'
import { emailsApi, type Email } from '../../api/emails.api.ts'

/**
 * The HTML part, framed from its own address (GET …/preview) in a sandbox: no scripts, no forms,
 * an origin of its own, links in a new tab. Images from other servers wait until asked for, as
 * loading them tells the sender the email was opened.
 */
function HtmlPreview({ email }: { email: Email }) {
  const { api } = useApi()
  const [remoteImages, setRemoteImages] = useState(false)
  return (
    <section className="panel" aria-labelledby="html-part">
      <div className="section-head">
        <h2 id="html-part">HTML</h2>
        {remoteImages ? (
          <span className="muted">Remote images are shown.</span>
        ) : (
          <Button className="button button-small" onPress={() => setRemoteImages(true)}>
            Load remote images
          </Button>
        )}
      </div>
      {!remoteImages && <p className="field-hint">Images from other servers are not loaded: loading them tells the sender the email was opened.</p>}
      <iframe
        key={String(remoteImages)}
        className="preview-frame"
        title="The email’s HTML"
        src={emailsApi(api).previewUrl(email.id, remoteImages)}
        sandbox="allow-popups allow-popups-to-escape-sandbox"
        referrerPolicy="no-referrer"
      />
    </section>
  )
}

/** The rendered message: its HTML (sandboxed) and its text part. */
export function Content({ email }: { email: Email }) {
  return (
    <>
      {email.html !== null ? (
        <HtmlPreview email={email} />
      ) : (
        <section className="panel" aria-labelledby="html-part">
          <h2 id="html-part">HTML</h2>
          <p className="muted">This email has no HTML part{email.text === null ? ', or retention deleted its content' : ''}.</p>
        </section>
      )}
      <section className="panel" aria-labelledby="text-part">
        <h2 id="text-part">Text</h2>
        {email.text !== null ? <pre className="text-part">{email.text}</pre> : <p className="muted">This email has no text part.</p>}
      </section>
    </>
  )
}
