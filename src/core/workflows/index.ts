// The public surface of workflows: what code outside src/core/workflows/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './engine.ts'
export * from './graph-edit.ts'
export * from './webhook-caller.ts'
export * from './workflow-executions.service.ts'
export * from './workflows.service.ts'
