const STEPS = ['Upload', 'Map columns', 'Import', 'Result']

/** Where an import is among its four steps: the current one is marked for assistive technology too. */
export function ImportSteps({ current }: { current: 1 | 2 | 3 | 4 }) {
  return (
    <ol className="import-steps" aria-label="Import steps">
      {STEPS.map((name, index) => {
        const step = index + 1
        const state = step < current ? 'done' : step === current ? 'current' : 'todo'
        return (
          <li key={name} className={`import-step import-step-${state}`} aria-current={state === 'current' ? 'step' : undefined}>
            <span className="import-step-number" aria-hidden="true">
              {state === 'done' ? '✓' : step}
            </span>
            {name}
          </li>
        )
      })}
    </ol>
  )
}
