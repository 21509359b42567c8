import { lazy, Suspense } from 'react'
import { Route, Switch } from 'wouter'
import { Layout } from './components/Layout.tsx'
import { Loading } from './components/States.tsx'
import { PAGES } from './pages.tsx'
import { ProjectProvider } from './app/project.tsx'
import { RequireSession } from './app/session.tsx'

const SignIn = lazy(() => import('./pages/SignIn.tsx'))
const Setup = lazy(() => import('./pages/Setup.tsx'))
const SetPassword = lazy(() => import('./pages/SetPassword.tsx'))
const Invitation = lazy(() => import('./pages/Invitation.tsx'))
const NotFound = lazy(() => import('./pages/NotFound.tsx'))

/** The pages of a signed-in person, in the project chosen. */
function ProjectPages() {
  return (
    <RequireSession>
      <ProjectProvider>
        <Layout>
          <Suspense fallback={<Loading label="Loading the page" />}>
            <Switch>
              {PAGES.map(({ path, Page, nested }) => (
                <Route key={path} path={nested ? `${path}/*?` : path}>
                  <Page />
                </Route>
              ))}
              <Route>
                <NotFound />
              </Route>
            </Switch>
          </Suspense>
        </Layout>
      </ProjectProvider>
    </RequireSession>
  )
}

/** Every address under /console/: the signed-out pages, else the project's. */
export function App() {
  return (
    <Suspense fallback={<Loading label="Loading" />}>
      <Switch>
        <Route path="/sign-in">
          <SignIn />
        </Route>
        <Route path="/setup">
          <Setup />
        </Route>
        <Route path="/password">
          <SetPassword />
        </Route>
        <Route path="/invitation">
          <Invitation />
        </Route>
        <Route>
          <ProjectPages />
        </Route>
      </Switch>
    </Suspense>
  )
}
