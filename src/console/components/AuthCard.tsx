import { useEffect, type ReactNode } from 'react'

/** The signed-out pages (sign-in, setup, password and invitation links): one card in the middle. */
export function AuthCard({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Mailstead`
  }, [title])
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <p className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Mailstead
        </p>
        <h1>{title}</h1>
        {intro && <div className="auth-intro">{intro}</div>}
        {children}
      </div>
    </main>
  )
}
