// The public surface of domains: what code outside src/core/domains/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './dkim-keys.ts'
export * from './domain-name.ts'
export * from './domain.ts'
export * from './domains.service.ts'
export * from './records.ts'
export * from './zone.ts'
export { dueDomains, findDomainById, findDomainsByName, isReturnPathHost, listDomains, sendingDomains, type DomainRow } from './domains.repository.ts'
export * from './domain-queries.ts'
