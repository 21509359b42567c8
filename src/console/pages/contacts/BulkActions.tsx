import { useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Button, DialogTrigger } from 'react-aria-components'
import { useApi } from '../../api/context.tsx'
import { contactsApi, type BulkAction, type BulkResult, type Selection } from '../../api/contacts.api.ts'
import { useProjectKey } from '../../app/project.tsx'
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx'
import { Dialog } from '../../components/Dialog.tsx'
import { FormErrors } from '../../components/FormErrors.tsx'
import { toast } from '../../components/Toast.tsx'

const count = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'contact' : 'contacts'}`

const DONE: Record<BulkAction, (r: BulkResult) => string> = {
  addToBook: (r) => `${count(r.changed)} added to the book`,
  removeFromBook: (r) => `${count(r.changed)} removed from the book`,
  unsubscribe: (r) => `${count(r.changed)} unsubscribed`,
  delete: (r) => `${count(r.changed)} deleted`,
}

function useBulk(action: BulkAction, selection: Selection, onDone: () => void) {
  const { api } = useApi()
  return useMutation({
    mutationFn: (bookId?: string) => contactsApi(api).bulk(action, selection, bookId),
    onSuccess: (result) => {
      const already = result.selected - result.changed
      toast({ title: DONE[action](result), ...(already > 0 && action !== 'delete' && { description: `${count(already)} already so, or not found.` }), tone: 'ok' })
      onDone()
    },
  })
}

/** Add to or remove from a contact book, picked from GET /api/v1/contactBooks. */
function BookAction({ action, selection, what, onDone }: { action: 'addToBook' | 'removeFromBook'; selection: Selection; what: string; onDone: () => void }) {
  const { api } = useApi()
  const books = useQuery({ queryKey: useProjectKey('contact-books'), queryFn: contactsApi(api).books })
  const run = useBulk(action, selection, onDone)
  const [bookId, setBookId] = useState('')
  const label = action === 'addToBook' ? 'Add to book' : 'Remove from book'
  const chosen = bookId || books.data?.[0]?.id || ''
  return (
    <DialogTrigger>
      <Button className="button button-small">{label}</Button>
      <Dialog title={`${label}: ${what}`}>
        {(close) => (
          <>
            {books.data?.length === 0 ? (
              <p>This project has no contact book yet. Create one with POST /api/v1/contactBooks.</p>
            ) : (
              <div className="field">
                <label htmlFor={`book-${action}`} className="field-label">
                  Contact book
                </label>
                <select id={`book-${action}`} className="input" value={chosen} onChange={(event) => setBookId(event.target.value)}>
                  {(books.data ?? []).map((book) => (
                    <option key={book.id} value={book.id}>
                      {book.emoji} {book.name} ({book.contactCount.toLocaleString()})
                    </option>
                  ))}
                </select>
                {action === 'addToBook' && <p className="field-hint">A book with double opt-in emails each contact its confirmation first.</p>}
              </div>
            )}
            <FormErrors error={run.error ?? books.error} fields={[]} />
            <div className="dialog-actions">
              <Button className="button" onPress={close}>
                Cancel
              </Button>
              <Button className="button button-primary" isDisabled={!chosen} isPending={run.isPending} onPress={() => run.mutateAsync(chosen).then(close, () => {})}>
                {label}
              </Button>
            </div>
          </>
        )}
      </Dialog>
    </DialogTrigger>
  )
}

function Unsubscribe({ selection, what, onDone }: { selection: Selection; what: string; onDone: () => void }) {
  const run = useBulk('unsubscribe', selection, onDone)
  return (
    <ConfirmDialog trigger="Unsubscribe" title={`Unsubscribe ${what}?`} confirm="Unsubscribe" tone="plain" onConfirm={() => run.mutateAsync(undefined)} pending={run.isPending} error={run.error}>
      <p>They stay contacts, and get no more campaigns until they subscribe again.</p>
    </ConfirmDialog>
  )
}

function Delete({ selection, what, onDone }: { selection: Selection; what: string; onDone: () => void }) {
  const run = useBulk('delete', selection, onDone)
  return (
    <ConfirmDialog trigger="Delete" title={`Delete ${what}?`} confirm="Delete contacts" onConfirm={() => run.mutateAsync(undefined)} pending={run.isPending} error={run.error}>
      <p>The contacts and their events are deleted for good. This cannot be undone.</p>
    </ConfirmDialog>
  )
}

/**
 * What can be done to the contacts chosen (`what` says them: "3 contacts", "all 1,204 matching"):
 * add to a book, remove from one, unsubscribe, and delete for owners and admins only.
 */
export function BulkActions({ selection, what, mayDelete, onDone }: { selection: Selection; what: string; mayDelete: boolean; onDone: () => void }) {
  return (
    <div className="bulk-actions" role="group" aria-label="Actions on the selected contacts">
      <BookAction action="addToBook" selection={selection} what={what} onDone={onDone} />
      <BookAction action="removeFromBook" selection={selection} what={what} onDone={onDone} />
      <Unsubscribe selection={selection} what={what} onDone={onDone} />
      {mayDelete && <Delete selection={selection} what={what} onDone={onDone} />}
    </div>
  )
}
