/** A setting that cannot be used; the message names it and says what is allowed. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}
