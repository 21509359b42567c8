/*
 * MAILSTEAD_HOSTNAME is the name this server gives in EHLO and the MX host of its return paths.
 * Receivers look it up: a bare machine name ("mailbox", the container's id) or a name that only
 * means something on a local network gets mail junked or refused. It is accepted all the same
 * (a test box may want it), with a warning at start and when a domain is added.
 */

/** Suffixes that name nothing on the public internet (RFC 6761, RFC 6762, RFC 8375 and common use). */
const LOCAL_SUFFIXES = ['localhost', 'localdomain', 'local', 'internal', 'lan', 'home', 'home.arpa', 'intranet', 'corp', 'private']

/** Why `hostname` will not do for receivers, or undefined when it is a fully qualified name. */
export function hostnameProblem(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  const fix = 'set MAILSTEAD_HOSTNAME to a name such as mail.example.com whose A record points at this server and whose PTR names it back'
  if (!name.includes('.')) return `MAILSTEAD_HOSTNAME is "${name}", not a fully qualified name: receivers check the name in EHLO against DNS; ${fix}`
  const local = LOCAL_SUFFIXES.find((suffix) => name === suffix || name.endsWith(`.${suffix}`))
  if (local) return `MAILSTEAD_HOSTNAME is "${name}", a name under .${local} that no receiver can look up; ${fix}`
  return undefined
}
