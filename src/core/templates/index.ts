// The public surface of templates: what code outside src/core/templates/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './render.ts'
export * from './subject.ts'
export * from './templates.service.ts'
