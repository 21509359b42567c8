import { Button } from 'react-aria-components'
import { CopyButton } from '../../components/CopyButton.tsx'
import { downloadText } from '../../lib/download.ts'

const FILE_NAME = 'mailstead-recovery-codes.txt'

/** The codes as a text file: what they are for, then one a line. */
const asText = (email: string, codes: string[]) =>
  [`Mailstead recovery codes for ${email}`, 'Each code signs in once in place of an authenticator code.', '', ...codes, ''].join('\n')

/**
 * Recovery codes, shown this once (after turning two-step sign-in on, or asking for new ones): the
 * list, a copy button, a download as .txt, and the Done button that hides them for good.
 */
export function RecoveryCodesOnce({ email, codes, onDone }: { email: string; codes: string[]; onDone: () => void }) {
  return (
    <div className="panel panel-notice recovery-codes" role="region" aria-labelledby="recovery-codes-heading">
      <h3 id="recovery-codes-heading">Your recovery codes</h3>
      <p>
        <strong>Each code works once; store them now.</strong> They are shown this once. If you lose your phone, sign in with your password and one of these in place of the
        authenticator code.
      </p>
      <ol className="recovery-code-list" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="form-actions">
        <CopyButton value={codes.join('\n')} label="recovery codes" />
        <Button className="button button-small" onPress={() => downloadText(asText(email, codes), FILE_NAME)}>
          Download as .txt
        </Button>
        <Button className="button button-primary" onPress={onDone}>
          I have stored them
        </Button>
      </div>
    </div>
  )
}
