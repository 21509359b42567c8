// The public surface of suppressions: what code outside src/core/suppressions/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './suppressions.service.ts'
export * from './suppressed.ts'
export * from './erased.ts'
