// The public surface of dmarc: what code outside src/core/dmarc/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './dmarc.service.ts'
export * from './report.ts'
export * from './summary.ts'
export * from './overview.ts'
