import { createContext, useContext, type ReactNode } from 'react'
import { authApi, type AuthApi } from './auth.api.ts'
import type { ApiClient } from './api-client.ts'

interface Apis {
  api: ApiClient
  auth: AuthApi
}

const ApiContext = createContext<Apis | undefined>(undefined)

/** The one API client of the page, for every component under it. */
export function ApiProvider({ api, children }: { api: ApiClient; children: ReactNode }) {
  return <ApiContext.Provider value={{ api, auth: authApi(api) }}>{children}</ApiContext.Provider>
}

export function useApi(): Apis {
  const apis = useContext(ApiContext)
  if (!apis) throw new Error('useApi outside ApiProvider')
  return apis
}
