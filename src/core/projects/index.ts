// The public surface of projects: what code outside src/core/projects/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './authenticator.ts'
export * from './keys.ts'
export * from './projects.service.ts'
export * from './sandbox-host.ts'
export * from './sandbox.ts'
export { findProject } from './projects.repository.ts'
export * from './project-queries.ts'
