import { lazy, type ComponentType, type LazyExoticComponent } from 'react'

/**
 * The console's pages: one row each, in the order of the navigation. A page's code loads when it
 * is first opened. The marketing pages (Contacts, Segments, Templates, Campaigns, Workflows) come
 * as rows of a "Marketing" section; nothing else needs to change for them.
 */
export interface PageEntry {
  /** Under /console; "/" is the Overview. */
  path: string
  label: string
  section: Section
  Page: LazyExoticComponent<ComponentType>
  /**
   * The page also takes every address under its path (/domains/12): it reads the rest with
   * wouter's useParams()['*'] or useRoute('/domains/:id'). Otherwise only `path` itself is its.
   */
  nested?: boolean
}

export type Section = 'Overview' | 'Sending' | 'Connect' | 'Marketing' | 'Project'
export const SECTIONS: Section[] = ['Overview', 'Sending', 'Connect', 'Marketing', 'Project']

export const PAGES: PageEntry[] = [
  { path: '/', label: 'Overview', section: 'Overview', Page: lazy(() => import('./pages/Overview.tsx')) },
  { path: '/emails', label: 'Emails', section: 'Sending', Page: lazy(() => import('./pages/Emails.tsx')), nested: true },
  { path: '/domains', label: 'Domains', section: 'Sending', Page: lazy(() => import('./pages/Domains.tsx')), nested: true },
  { path: '/suppressions', label: 'Suppressions', section: 'Sending', Page: lazy(() => import('./pages/Suppressions.tsx')) },
  { path: '/reports', label: 'Reports', section: 'Sending', Page: lazy(() => import('./pages/Reports.tsx')), nested: true },
  { path: '/queue', label: 'Queue', section: 'Sending', Page: lazy(() => import('./pages/Queue.tsx')) },
  { path: '/webhooks', label: 'Webhooks', section: 'Sending', Page: lazy(() => import('./pages/Webhooks.tsx')), nested: true },
  { path: '/api-keys', label: 'API keys', section: 'Connect', Page: lazy(() => import('./pages/ApiKeys.tsx')) },
  { path: '/smtp', label: 'SMTP relay', section: 'Connect', Page: lazy(() => import('./pages/SmtpRelay.tsx')) },
  { path: '/contacts', label: 'Contacts', section: 'Marketing', Page: lazy(() => import('./pages/Contacts.tsx')), nested: true },
  { path: '/segments', label: 'Segments', section: 'Marketing', Page: lazy(() => import('./pages/Segments.tsx')), nested: true },
  { path: '/settings', label: 'Settings', section: 'Project', Page: lazy(() => import('./pages/Settings.tsx')) },
]
