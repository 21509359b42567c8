import { useId, type ReactNode } from 'react'

interface CardProps {
  /** The card's heading (an h2), which also names it as a region. */
  title?: ReactNode
  /** A line under the heading. */
  description?: ReactNode
  /** Buttons or links at the heading's right. */
  actions?: ReactNode
  /** 'danger' outlines a card whose actions destroy something. */
  tone?: 'plain' | 'danger' | 'notice'
  className?: string
  children: ReactNode
}

/** A surface for one subject on a page: a subtle border, its heading and actions on one line. */
export function Card({ title, description, actions, tone = 'plain', className, children }: CardProps) {
  const id = useId()
  return (
    <section className={['card', tone !== 'plain' && `card-${tone}`, className].filter(Boolean).join(' ')} aria-labelledby={title ? id : undefined}>
      {(title || actions) && (
        <header className="card-head">
          <div>
            {title && <h2 id={id}>{title}</h2>}
            {description && <p className="card-description">{description}</p>}
          </div>
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  )
}
