/** A mistake in how a command was called: printed with a hint, exit code 2. */
export class CliError extends Error {
  override name = 'CliError'
}
