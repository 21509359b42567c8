import type { Db } from '../../db/schema.ts'
import { AppError } from '../../lib/errors.ts'
import { changeProject } from '../projects/projects.service.ts'
import { domainOf } from '../projects/sandbox.ts'
import { unsettledSandboxSenders } from './emails.service.ts'
import { verifiedDomain } from './send.ts'

/*
 * Whether a project's sandbox may be switched off depends on its mail in flight, so it is decided
 * here, beside that mail: the projects module below does not reach up into emails for it.
 */

/**
 * Turns a project's sandbox on or off. Off is refused while its sandbox mail is still in flight
 * from a domain the project has not verified: that mail stays simulated either way (each delivery
 * keeps the flag it was queued with), but the project would then answer as a real one for mail it
 * could never have sent.
 */
export async function setProjectSandbox(db: Db, id: number, sandbox: boolean, now: number) {
  if (!sandbox) await requireNoUnverifiedSenders(db, id)
  return changeProject(db, id, { sandbox: sandbox ? 1 : 0 }, now)
}

async function requireNoUnverifiedSenders(db: Db, projectId: number) {
  const unverified = new Set<string>()
  for (const from of await unsettledSandboxSenders(db, projectId)) {
    const domain = domainOf(from)
    if (domain && !(await verifiedDomain(db, projectId, domain))) unverified.add(domain)
  }
  if (unverified.size === 0) return
  const names = [...unverified].sort().join(', ')
  throw new AppError(409, 'SANDBOX_MAIL_IN_FLIGHT', `The project still has sandbox mail in flight from unverified domains (${names})`, {
    suggestion: 'Wait until its sandbox mail is settled (GET /api/v1/queue), or verify those domains, then switch the sandbox off.',
  })
}
