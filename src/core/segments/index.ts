// The public surface of segments: what code outside src/core/segments/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './compile.ts'
export * from './condition.ts'
export * from './book-contacts.service.ts'
export * from './contact-books.service.ts'
export * from './contact-memberships.ts'
export * from './segment-members.service.ts'
export * from './membership.ts'
export * from './segment.ts'
export * from './segments.service.ts'
export * from './segment-tracking.ts'
export { findSegment } from './segments.repository.ts'
export * from './segment-queries.ts'
