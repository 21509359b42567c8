// The public surface of workflows: what code outside src/core/workflows/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './entry.ts'
export * from './scanner.ts'
export * from './steps.ts'
export * from './ticks.ts'
export * from './workflow.ts'
export * from './graph-edit.ts'
export * from './webhook-caller.ts'
export * from './workflow-executions.service.ts'
export * from './workflows.service.ts'
export {
  claimExecutions,
  dueExecutions,
  findExecution,
  findWorkflowById,
  moveExecution,
  recordStep,
  type ExecutionRow,
  type Move,
  type WorkflowRow,
} from './executions.repository.ts'
export * from './contact-runs.ts'
