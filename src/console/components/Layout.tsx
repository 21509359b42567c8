import { useMutation } from '@tanstack/react-query'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { Button } from 'react-aria-components'
import { Link, useLocation } from 'wouter'
import { useApi } from '../api/context.tsx'
import { useProject } from '../app/project.tsx'
import { useSession, useSignedOut } from '../app/session.tsx'
import { SETTINGS_EDITORS } from '../api/project.api.ts'
import { PAGES, SECTIONS } from '../pages.tsx'
import { NewProjectDialog } from '../pages/projects/NewProjectDialog.tsx'
import { RenameProjectDialog } from '../pages/projects/RenameProjectDialog.tsx'
import { ThemeSwitch } from './ThemeSwitch.tsx'
import { Toasts } from './Toast.tsx'

/**
 * The project switcher: a plain select, which every browser and screen reader knows. Its name,
 * "Current project", is its own: "Project" alone is also the settings panel, the project name field
 * and the delete panel, so a screen reader's list of controls (and a test) could not tell them apart.
 * Under it: a new project, and renaming this one for the roles that may (the server refuses the others).
 */
function ProjectSwitcher() {
  const { project, projects, select } = useProject()
  return (
    <div className="switcher">
      <label htmlFor="project-switcher" className="field-label">
        Current project
      </label>
      <select id="project-switcher" className="input" value={project.id} onChange={(event) => select(Number(event.target.value))}>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <p className="field-hint">
        Your role: {project.role}
        {!SETTINGS_EDITORS.includes(project.role) && '. An owner or admin renames the project.'}
      </p>
      <div className="switcher-actions">
        <NewProjectDialog />
        {SETTINGS_EDITORS.includes(project.role) && <RenameProjectDialog />}
      </div>
    </div>
  )
}

function Navigation({ onNavigate }: { onNavigate: () => void }) {
  const [location] = useLocation()
  const current = (path: string) => (path === '/' ? location === '/' : location === path || location.startsWith(`${path}/`))
  return (
    <nav aria-label="Console" className="nav">
      {SECTIONS.map((section) => {
        const pages = PAGES.filter((page) => page.section === section)
        if (pages.length === 0) return null
        return (
          <div key={section} className="nav-section">
            {section !== 'Overview' && <h2 className="nav-heading">{section}</h2>}
            <ul>
              {pages.map((page) => (
                <li key={page.path}>
                  <Link href={page.path} className="nav-link" aria-current={current(page.path) ? 'page' : undefined} onClick={onNavigate}>
                    {page.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        )
      })}
    </nav>
  )
}

function AccountBox({ onNavigate }: { onNavigate: () => void }) {
  const { auth } = useApi()
  const session = useSession()
  const signedOut = useSignedOut()
  const [location, navigate] = useLocation()
  const signOut = useMutation({
    mutationFn: auth.signOut,
    // Whether the server still knew the session or not, this browser is signed out now.
    onSettled: () => {
      signedOut()
      navigate('/sign-in')
    },
  })
  return (
    <div className="account">
      <p className="account-email" title={session.data?.account.email}>
        {session.data?.account.email}
      </p>
      <Link href="/account" className="nav-link" aria-current={location === '/account' ? 'page' : undefined} onClick={onNavigate}>
        Your account
      </Link>
      {/* Served by this server (/docs), outside the console's router: a plain link, no sign-in needed. */}
      <a href="/docs" className="nav-link">
        Documentation
      </a>
      <ThemeSwitch />
      <Button className="button button-small" onPress={() => signOut.mutate()} isPending={signOut.isPending}>
        Sign out
      </Button>
    </div>
  )
}

/**
 * Every signed-in page: the side bar (project, navigation, account, theme), which a phone opens
 * as a drawer with the Menu button, and the page. After moving to another page, focus goes to its main content.
 */
export function Layout({ children }: { children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false)
  const [location] = useLocation()
  const { project } = useProject()
  const main = useRef<HTMLElement>(null)
  const first = useRef(true)
  // Another project is another page: the drawer closes as it does after a link.
  useEffect(() => setMenuOpen(false), [project.id])
  useEffect(() => {
    if (!menuOpen) return
    const close = (event: KeyboardEvent) => event.key === 'Escape' && setMenuOpen(false)
    window.addEventListener('keydown', close)
    return () => window.removeEventListener('keydown', close)
  }, [menuOpen])
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    main.current?.focus({ preventScroll: true })
    window.scrollTo(0, 0)
  }, [location])
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Mailstead
        </Link>
        <Button className="button menu-button" aria-expanded={menuOpen} aria-controls="sidebar" onPress={() => setMenuOpen(!menuOpen)}>
          {menuOpen ? 'Close menu' : 'Menu'}
        </Button>
      </header>
      {/* On a phone the side bar is a drawer over the page; a tap beside it (or Escape) closes it. */}
      {menuOpen && <div className="drawer-scrim" aria-hidden="true" onClick={() => setMenuOpen(false)} />}
      <aside id="sidebar" className={menuOpen ? 'sidebar open' : 'sidebar'}>
        <Link href="/" className="brand sidebar-brand">
          <span className="brand-mark" aria-hidden="true" />
          Mailstead
        </Link>
        <ProjectSwitcher />
        <Navigation onNavigate={() => setMenuOpen(false)} />
        <AccountBox onNavigate={() => setMenuOpen(false)} />
      </aside>
      <main id="main" ref={main} tabIndex={-1} className="main">
        {children}
      </main>
      <Toasts />
    </div>
  )
}
