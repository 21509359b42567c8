import type { ReactNode } from 'react'

export type Tone = 'neutral' | 'ok' | 'warn' | 'bad' | 'info' | 'accent'

/** A short state in a pill, coloured by its tone (the text says it too: colour is never alone). */
export function Badge({ tone = 'neutral', children, className }: { tone?: Tone; children: ReactNode; className?: string }) {
  return <span className={['badge', `tone-${tone}`, className].filter(Boolean).join(' ')}>{children}</span>
}
