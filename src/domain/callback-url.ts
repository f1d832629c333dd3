import { E, type ErrorDef } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'

/** Schemes that would run script or read local files if a browser were sent to them. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:'])

interface CallbackParts {
  scheme: string
  host: string
  port: string
  path: string
}

/** Parses an absolute callback URL (http, https or a custom scheme such as myapp://cb); undefined if unusable. */
export function parseCallbackUrl(value: string): URL | undefined {
  // eslint-disable-next-line no-control-regex -- control characters and spaces are exactly what a callback must not hold
  if (value.length > 2000 || /[\u0000-\u0020\u007f]/.test(value)) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol) || url.hash !== '' || url.username !== '' || url.password !== '') return undefined
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname === '') return undefined
  return url
}

function parts(url: URL): CallbackParts {
  return { scheme: url.protocol, host: url.hostname.toLowerCase(), port: url.port, path: url.pathname || '/' }
}

/** Checks a URL given at registration; throws invalidParameter naming the problem. */
export function validateRegisteredCallback(value: string, def: ErrorDef = E.invalidParameter): string {
  if (value.trim().toLowerCase() === 'oob') {
    // The PIN flow is asked for per request, never registered.
    throw new ServiceError(def, {
      message: 'oob is not a callback URL to register: every app may ask for the PIN flow with oauth_callback=oob (an app with no callback URL uses only the PIN flow)',
    })
  }
  const url = parseCallbackUrl(value)
  if (!url) {
    throw new ServiceError(def, {
      message: `callback URL ${JSON.stringify(value)} must be an absolute URL without a fragment (http, https or an app's own scheme)`,
    })
  }
  return url.href
}

/**
 * A requested callback matches a registered one when scheme, host, port and path are equal; it may
 * add its own query parameters. Returns the requested URL as it will be used, or undefined.
 */
export function matchCallback(registered: readonly string[], requested: string): string | undefined {
  const url = parseCallbackUrl(requested)
  if (!url) return undefined
  const want = parts(url)
  for (const candidate of registered) {
    const reg = parseCallbackUrl(candidate)
    if (!reg) continue
    const have = parts(reg)
    if (have.scheme === want.scheme && have.host === want.host && have.port === want.port && have.path === want.path) {
      return url.href
    }
  }
  return undefined
}
