/**
 * Grey bars where content will be, while it loads (a slow shine, still under reduced motion), so the
 * page does not jump when it comes; the label is announced once to screen readers.
 */
export function Skeleton({ label, lines = 3 }: { label: string; lines?: number }) {
  return (
    <div className="state-loading skeleton-block" role="status">
      <span className="visually-hidden">{label}…</span>
      {Array.from({ length: lines }, (_, i) => (
        <span key={i} className="skeleton" data-width={i % 3} aria-hidden="true" />
      ))}
    </div>
  )
}
