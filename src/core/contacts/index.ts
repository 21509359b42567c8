// The public surface of contacts: what code outside src/core/contacts/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './contact.ts'
export * from './contacts.service.ts'
export * from './contacts-bulk.service.ts'
export * from './export.ts'
export * from './import-file.ts'
export * from './imports.service.ts'
export { contactsByIds, findContact, findContactByKey, updateContact } from './contacts.repository.ts'
export { claimImport, finishImport, saveProgress, waitingImportIds, type ImportRow } from './imports.repository.ts'
export { dropUpload, fetchUpload } from './import-uploads.repository.ts'
export * from './contact-queries.ts'
