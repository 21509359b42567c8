import { useQuery, useQueryClient } from '@tanstack/react-query'
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react'
import type { MyProject } from '../api/auth.api.ts'
import { useApi } from '../api/context.tsx'
import { ErrorState, Loading } from '../components/States.tsx'
import { FirstProject } from '../pages/FirstProject.tsx'
import { PROJECTS_KEY } from './query-keys.ts'

const STORED = 'mailstead.project'

interface ProjectValue {
  project: MyProject
  projects: MyProject[]
  select(id: number): void
}

const ProjectContext = createContext<ProjectValue | undefined>(undefined)

/** The project shown, with the others of the account for the switcher. */
export function useProject(): ProjectValue {
  const value = useContext(ProjectContext)
  if (!value) throw new Error('useProject outside ProjectProvider')
  return value
}

/**
 * A query key of the project shown: its answers are never shown for another project, and
 * switching projects reads them again.
 */
export function useProjectKey(...parts: unknown[]): unknown[] {
  return ['project', useProject().project.id, ...parts]
}

const storedId = () => Number(localStorage.getItem(STORED)) || undefined

/**
 * Chooses the project every request names (X-Project-Id): the one chosen last in this browser if
 * the account still has it, else its first. An account without a project is asked to make one.
 */
export function ProjectProvider({ children }: { children: ReactNode }) {
  const { api, auth } = useApi()
  const queries = useQueryClient()
  const projects = useQuery({ queryKey: PROJECTS_KEY, queryFn: auth.myProjects })
  const [chosen, setChosen] = useState(storedId)
  const select = useCallback(
    (id: number) => {
      localStorage.setItem(STORED, String(id))
      setChosen(id)
      queries.removeQueries({ queryKey: ['project'] })
    },
    [queries],
  )
  if (projects.error) return <ErrorState error={projects.error} retry={() => projects.refetch()} />
  if (!projects.data) return <Loading label="Loading your projects" />
  const list = projects.data
  const project = list.find((p) => p.id === chosen) ?? list[0]
  if (!project) return <FirstProject onCreated={(id) => select(id)} />
  // Set before the children render: their first requests already name it.
  api.projectId = project.id
  return <ProjectContext.Provider value={{ project, projects: list, select }}>{children}</ProjectContext.Provider>
}
