/**
 * The console's theme: "system" follows prefers-color-scheme; "light" and "dark" are the person's
 * choice, remembered in localStorage under THEME_KEY and set as data-theme on <html> (the stylesheet's
 * tokens read it). boot/theme-boot.ts applies the remembered one before the first paint.
 */
export type ThemeChoice = 'system' | 'light' | 'dark'

export const THEME_KEY = 'mailstead.theme'
export const THEME_CHOICES: ReadonlyArray<{ id: ThemeChoice; label: string }> = [
  { id: 'system', label: 'System' },
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
]

/** What is stored, or "system" for nothing (or anything else). */
export function parseThemeChoice(stored: string | null | undefined): ThemeChoice {
  return stored === 'light' || stored === 'dark' ? stored : 'system'
}

export function readThemeChoice(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): ThemeChoice {
  try {
    return parseThemeChoice(storage?.getItem(THEME_KEY))
  } catch {
    return 'system'
  }
}

/** Remembers the choice and applies it to the document at once. */
export function applyThemeChoice(choice: ThemeChoice, root: HTMLElement = document.documentElement, storage: Pick<Storage, 'setItem' | 'removeItem'> | undefined = globalThis.localStorage) {
  if (choice === 'system') delete root.dataset.theme
  else root.dataset.theme = choice
  try {
    if (choice === 'system') storage?.removeItem(THEME_KEY)
    else storage?.setItem(THEME_KEY, choice)
  } catch {
    // Storage refused: the choice holds for this page only.
  }
}
