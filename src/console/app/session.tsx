import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, type ReactNode } from 'react'
import { useLocation, useSearch } from 'wouter'
import type { SignedIn } from '../api/auth.api.ts'
import { useApi } from '../api/context.tsx'
import { ApiError } from '../api/api-errors.ts'
import { ErrorState, Loading } from '../components/States.tsx'
import { SESSION_KEY } from './query-keys.ts'

/** The signed-in account, null when nobody is; the client keeps the session's CSRF token. */
export function useSession() {
  const { api, auth } = useApi()
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async (): Promise<SignedIn | null> => {
      try {
        const session = await auth.session()
        api.csrfToken = session.csrfToken
        return session
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null
        throw error
      }
    },
    staleTime: Infinity,
    retry: false,
  })
}

/** What a sign-in, a setup or an accepted invitation calls with its answer. */
export function useSignedIn() {
  const { api } = useApi()
  const queries = useQueryClient()
  return useCallback(
    (session: SignedIn) => {
      api.csrfToken = session.csrfToken
      queries.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] })
      queries.setQueryData(SESSION_KEY, session)
    },
    [api, queries],
  )
}

/** Forgets the session and everything read with it. */
export function useSignedOut() {
  const { api } = useApi()
  const queries = useQueryClient()
  return useCallback(() => {
    api.csrfToken = undefined
    api.projectId = undefined
    queries.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] })
    queries.setQueryData(SESSION_KEY, null)
  }, [api, queries])
}

/** Where to go after signing in: the page asked for, when it is one of the console's. */
export function useNextPath(): string {
  const next = new URLSearchParams(useSearch()).get('next') ?? '/'
  return next.startsWith('/') && !next.startsWith('//') ? next : '/'
}

/**
 * The signed-in part of the console: without a session, the first-run setup while no account
 * exists, else the sign-in page, which comes back here afterwards.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession()
  const { api, auth } = useApi()
  const signedOut = useSignedOut()
  const [location, navigate] = useLocation()
  const search = useSearch()
  useEffect(() => {
    api.onSignedOut = signedOut
  }, [api, signedOut])
  useEffect(() => {
    if (session.data !== null) return
    const next = encodeURIComponent(location + (search ? `?${search}` : ''))
    auth.setupOpen().then(
      ({ open }) => navigate(open ? '/setup' : `/sign-in?next=${next}`, { replace: true }),
      () => navigate(`/sign-in?next=${next}`, { replace: true }),
    )
  }, [session.data, auth, location, search, navigate])
  if (session.error) return <ErrorState error={session.error} retry={() => session.refetch()} />
  if (!session.data) return <Loading label="Loading the console" />
  return children
}
