// The public surface of verify: what code outside src/core/verify/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './verify.service.ts'
