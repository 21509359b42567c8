import { lazy } from 'react'
import { Route, Switch } from 'wouter'
import NotFound from './NotFound.tsx'

const ContactList = lazy(() => import('./contacts/ContactList.tsx'))
const ContactImport = lazy(() => import('./contacts/ContactImport.tsx'))
const ContactPage = lazy(() => import('./contacts/ContactPage.tsx'))

/** /contacts: the table; /contacts/import: a CSV import; /contacts/:id: one contact. */
export default function Contacts() {
  return (
    <Switch>
      <Route path="/contacts" component={ContactList} />
      <Route path="/contacts/import" component={ContactImport} />
      <Route path="/contacts/:id" component={ContactPage} />
      <Route component={NotFound} />
    </Switch>
  )
}
