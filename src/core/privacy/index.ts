// The public surface of privacy: what code outside src/core/privacy/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './privacy.service.ts'
