import type { Dialect } from '../src/db/client.ts'
import type { Migration } from '../src/db/migrator.ts'
import * as init from './0001_init.ts'
import * as domains from './0002_domains.ts'
import * as sending from './0003_sending.ts'
import * as inbound from './0004_inbound.ts'
import * as contactsJsonb from './0005_contacts_jsonb.ts'
import * as segments from './0006_segments.ts'
import * as campaigns from './0007_campaigns.ts'
import * as contactImports from './0008_contact_imports.ts'
import * as workflows from './0009_workflows.ts'
import * as webhooks from './0010_webhooks.ts'
import * as deliverySites from './0011_delivery_sites.ts'
import * as dmarcReports from './0012_dmarc_reports.ts'
import * as serverChecks from './0013_server_checks.ts'
import * as sendingCounters from './0014_sending_counters.ts'
import * as mtaSts from './0015_mta_sts.ts'
import * as receivedReports from './0016_received_reports.ts'
import * as reportFingerprints from './0018_report_fingerprints.ts'
import * as changeSignal from './0019_change_signal.ts'
import * as jsonMergePatch from './0020_json_merge_patch.ts'
import * as leases from './0021_leases.ts'
import * as workSignals from './0022_work_signals.ts'
import * as commitOrder from './0023_commit_order.ts'
import * as claims from './0024_claims.ts'
import * as rateLimits from './0026_rate_limits.ts'
import * as importUploads from './0027_import_uploads.ts'
import * as analytics from './0028_analytics.ts'
import * as accounts from './0029_accounts.ts'
import * as projectMembers from './0030_project_members.ts'
import * as accountTotp from './0031_account_totp.ts'
import * as webhookResponses from './0032_webhook_responses.ts'
import * as plunkLists from './0033_plunk_lists.ts'
import * as sandboxProjects from './0034_sandbox_projects.ts'
import * as sandboxCounters from './0035_sandbox_counters.ts'
import * as trackingStreams from './0036_tracking_streams.ts'
import * as relayBounceNotices from './0037_relay_bounce_notices.ts'
import * as keyScopes from './0038_key_scopes.ts'
import * as recoveryCodes from './0039_recovery_codes.ts'
import * as reportProjects from './0040_report_projects.ts'
import * as bookOptIns from './0041_book_opt_ins.ts'
import * as importMappings from './0042_import_mappings.ts'
import * as signupForms from './0043_signup_forms.ts'
import * as projectBrand from './0044_project_brand.ts'
import * as postgresBaseline from './postgres/0018_postgres_baseline.ts'

/**
 * Every SQLite migration, in order. Listed by hand because the compiled binary has no folder to scan;
 * a test checks that this list and the files agree.
 */
export const MIGRATIONS: readonly Migration[] = [
  { name: '0001_init', ...init },
  { name: '0002_domains', ...domains },
  { name: '0003_sending', ...sending },
  { name: '0004_inbound', ...inbound },
  { name: '0005_contacts_jsonb', ...contactsJsonb },
  { name: '0006_segments', ...segments },
  { name: '0007_campaigns', ...campaigns },
  { name: '0008_contact_imports', ...contactImports },
  { name: '0009_workflows', ...workflows },
  { name: '0010_webhooks', ...webhooks },
  { name: '0011_delivery_sites', ...deliverySites },
  { name: '0012_dmarc_reports', ...dmarcReports },
  { name: '0013_server_checks', ...serverChecks },
  { name: '0014_sending_counters', ...sendingCounters },
  { name: '0015_mta_sts', ...mtaSts },
  { name: '0016_received_reports', ...receivedReports },
  { name: '0018_report_fingerprints', ...reportFingerprints },
  { name: '0019_change_signal', ...changeSignal },
  { name: '0020_json_merge_patch', ...jsonMergePatch },
  { name: '0021_leases', ...leases },
  { name: '0022_work_signals', ...workSignals },
  { name: '0023_commit_order', ...commitOrder },
  { name: '0024_claims', ...claims },
  { name: '0026_rate_limits', ...rateLimits },
  { name: '0027_import_uploads', ...importUploads },
  { name: '0028_analytics', ...analytics },
  { name: '0029_accounts', ...accounts },
  { name: '0030_project_members', ...projectMembers },
  { name: '0031_account_totp', ...accountTotp },
  { name: '0032_webhook_responses', ...webhookResponses },
  { name: '0033_plunk_lists', ...plunkLists },
  { name: '0034_sandbox_projects', ...sandboxProjects },
  { name: '0035_sandbox_counters', ...sandboxCounters },
  { name: '0036_tracking_streams', ...trackingStreams },
  { name: '0037_relay_bounce_notices', ...relayBounceNotices },
  { name: '0038_key_scopes', ...keyScopes },
  { name: '0039_recovery_codes', ...recoveryCodes },
  { name: '0040_report_projects', ...reportProjects },
  { name: '0041_book_opt_ins', ...bookOptIns },
  { name: '0042_import_mappings', ...importMappings },
  { name: '0043_signup_forms', ...signupForms },
  { name: '0044_project_brand', ...projectBrand },
]

/**
 * PostgreSQL's migrations: one baseline with the schema of SQLite's 0001 to 0018, then the same
 * list as SQLite's, each with the body its dialect needs.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  { name: '0018_postgres_baseline', ...postgresBaseline },
  ...MIGRATIONS.slice(MIGRATIONS.findIndex((m) => m.name === '0018_report_fingerprints') + 1),
]

export const migrationsFor = (dialect: Dialect): readonly Migration[] => (dialect === 'postgres' ? POSTGRES_MIGRATIONS : MIGRATIONS)
