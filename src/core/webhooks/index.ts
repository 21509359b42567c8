// The public surface of webhooks: what code outside src/core/webhooks/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './caller.ts'
export * from './contact-events.ts'
export * from './dispatcher.ts'
export * from './domain-events.ts'
export * from './email-event-webhooks.ts'
export * from './emit.ts'
export * from './event-types.ts'
export * from './payload.ts'
export * from './webhooks.service.ts'
