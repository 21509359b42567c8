/** Query keys shared across the console. Project-scoped keys start with ['project', id] (useProjectKey). */
export const SESSION_KEY = ['session'] as const
export const PROJECTS_KEY = ['projects'] as const
