import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Button, DialogTrigger, Input, Label, TextField } from 'react-aria-components'
import { useLocation } from 'wouter'
import { useApi } from '../../../api/context.tsx'
import { contactApi, type Contact } from '../../../api/contact.api.ts'
import { useProject } from '../../../app/project.tsx'
import { Card } from '../../../components/Card.tsx'
import { Dialog } from '../../../components/Dialog.tsx'
import { FormErrors } from '../../../components/FormErrors.tsx'
import { ErrorState } from '../../../components/States.tsx'
import { toast } from '../../../components/Toast.tsx'
import { downloadText } from '../../../lib/download.ts'

/** The roles that may erase a contact (src/core/accounts/roles.ts, 'delete-data', decides; this only hides what they would be refused). */
const ERASERS = ['owner', 'admin']

/** Erasing asks for the address typed in full: the one action here that cannot be undone. */
function EraseDialog({ contact }: { contact: Contact }) {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const [, navigate] = useLocation()
  const [typed, setTyped] = useState('')
  const erase = useMutation({
    mutationFn: () => contactApi(api).erase(contact.id),
    onSuccess: () => {
      queries.removeQueries({ queryKey: ['project', project.id, 'contact', contact.id] })
      queries.invalidateQueries({ queryKey: ['project', project.id, 'contacts'] })
      toast({ title: 'Contact erased', description: 'Its address stays suppressed by its hash only.', tone: 'ok' })
      navigate('/contacts')
    },
  })
  const matches = typed.trim().toLowerCase() === contact.email.toLowerCase()
  return (
    <DialogTrigger onOpenChange={() => setTyped('')}>
      <Button className="button button-danger">Erase contact</Button>
      <Dialog title="Erase this contact?" role="alertdialog">
        {(close) => (
          <>
            <p>
              This deletes the contact, its events, segment and book memberships, consents, workflow runs, the emails sent to it and the webhook deliveries
              that name it. Its address is kept only as a hash on the suppression list, so that it is not mailed again. This cannot be undone.
            </p>
            <TextField className="field" value={typed} onChange={setTyped} autoFocus>
              <Label className="field-label">Type {contact.email} to confirm</Label>
              <Input className="input" autoComplete="off" spellCheck={false} />
            </TextField>
            <FormErrors error={erase.error} fields={[]} />
            <div className="dialog-actions">
              <Button className="button" onPress={close}>
                Cancel
              </Button>
              <Button className="button button-danger button-solid" isDisabled={!matches} isPending={erase.isPending} onPress={() => erase.mutate()}>
                Erase for good
              </Button>
            </div>
          </>
        )}
      </Dialog>
    </DialogTrigger>
  )
}

/** Export everything held about the contact; erase it (owners and admins). */
export function ContactPrivacy({ contact }: { contact: Contact }) {
  const { api } = useApi()
  const { project } = useProject()
  const exported = useMutation({
    mutationFn: () => contactApi(api).privacyExport(contact.id),
    onSuccess: (text) => downloadText(text, `contact-${contact.id}.json`, 'application/json'),
  })
  return (
    <Card title="Privacy" description="What this project holds about the person, and the right to have it removed." tone="danger">
      <div className="privacy-actions">
        <div>
          <Button className="button" isPending={exported.isPending} onPress={() => exported.mutate()}>
            Export data
          </Button>
          <p className="field-hint">A JSON file with its data, subscription, events, emails and their states, consents, segments, books and workflow runs.</p>
          {exported.error != null && <ErrorState error={exported.error} />}
        </div>
        {ERASERS.includes(project.role) && (
          <div>
            <EraseDialog contact={contact} />
            <p className="field-hint">Removes the contact from everything, and keeps only a hash of its address so it is never mailed again.</p>
          </div>
        )}
      </div>
    </Card>
  )
}
