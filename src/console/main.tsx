import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { Router } from 'wouter'
import { ApiClient } from './api/api-client.ts'
import { ApiProvider } from './api/context.tsx'
import { ApiError } from './api/api-errors.ts'
import { App } from './app.tsx'
import './styles/app.css'

// React Aria inserts a <style> element for its pressable elements' touch-action unless an element
// with this id exists; the policy (style-src 'self') would refuse it, so app.css has the rule and
// this marker says so.
const pressableStyle = document.createElement('meta')
pressableStyle.id = 'react-aria-pressable-style'
document.head.append(pressableStyle)

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // An answer the API gave (a 4xx, say) is not asked for again; a lost connection or a 5xx once.
      retry: (failures, error) => failures < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    },
  },
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <ApiProvider api={new ApiClient()}>
        <Router base="/console">
          <App />
        </Router>
      </ApiProvider>
    </QueryClientProvider>
  </StrictMode>,
)
