// The public surface of analytics: what code outside src/core/analytics/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './analytics.service.ts'
export * from './counters.ts'
export * from './range.ts'
export * from './rates.ts'
