// The public surface of guardrails: what code outside src/core/guardrails/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './guard.ts'
export * from './monitor.ts'
