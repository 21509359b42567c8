// The public surface of events: what code outside src/core/events/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './events.service.ts'
export * from './record.ts'
export * from './event-queries.ts'
export * from './timeline.ts'
