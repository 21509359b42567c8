// The public surface of inbound: what code outside src/core/inbound/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export { firstSighting, type Fingerprint } from './fingerprints.repository.ts'
export { findReport, listReports, recordReport, REPORTS_KEPT, type ReceivedReportRow, type Verdict } from './received-reports.repository.ts'
export { actionOf, projectReports, type Action } from './project-reports.ts'
