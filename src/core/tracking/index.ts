// The public surface of tracking: what code outside src/core/tracking/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './bulk-mail.ts'
export * from './links.ts'
export * from './policy.ts'
export * from './unsubscribe-links.ts'
