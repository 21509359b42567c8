/**
 * A session's browser in a few words, from its User-Agent: "Chrome on Linux". The whole string
 * is shown on hover; a client that is no browser is named by its first word.
 */
export function browserName(userAgent: string | null): string {
  if (!userAgent) return 'Unknown client'
  const ua = userAgent
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\//.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /(Chrome|Chromium|HeadlessChrome)\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua) && /Version\//.test(ua)
            ? 'Safari'
            : undefined
  const system = /iPhone|iPad/.test(ua) ? 'iOS' : /Android/.test(ua) ? 'Android' : /Windows/.test(ua) ? 'Windows' : /Mac OS X|Macintosh/.test(ua) ? 'macOS' : /Linux|X11/.test(ua) ? 'Linux' : undefined
  if (!browser) return ua.split(/[\s/]/)[0] || 'Unknown client'
  return system ? `${browser} on ${system}` : browser
}

/** The secret of an otpauth:// URI in groups of four, easier to type into an app: "ABCD EFGH …". */
export const groupedSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ')
