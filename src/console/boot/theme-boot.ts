// Runs before the console's first paint (inline in index.html's head, put there by
// src/http/console/bundle.ts and allowed by its hash in the policy). It sets data-theme on <html> from the
// choice remembered in localStorage ("light" or "dark"); with none, the stylesheet follows the
// system's prefers-color-scheme. Kept tiny and free of imports: it blocks the parser while it runs.
try {
  const chosen = localStorage.getItem('mailstead.theme')
  if (chosen === 'light' || chosen === 'dark') document.documentElement.dataset.theme = chosen
} catch {
  // Storage refused (a private window's policy): the system's setting applies.
}
