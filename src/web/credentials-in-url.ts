import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { percentDecode } from '../protocol/oauth1/percent-encode.ts'

/** Client credentials never belong in a URL, on any endpoint (RFC 6749 §2.3.1: MUST NOT), but see PUBLIC_ON_PATH. */
const SECRET_EVERYWHERE = ['client_id', 'client_secret']
/** The token to introspect travels in the body (RFC 7662 §2.1). */
const SECRET_ON_PATH: Record<string, readonly string[]> = { '/oauth2/introspect': ['token'] }
/**
 * OAuth 2.0 user context's authorization request carries its client id in the query (RFC 6749
 * §4.1.1): there it is an identifier, not the consumer key of the app-only flow, and no secret.
 */
const PUBLIC_ON_PATH: Record<string, readonly string[]> = { '/i/oauth2/authorize': ['client_id'] }

/**
 * Refuses, with 403 code 99, a request whose query holds a client credential (or the token of an
 * introspection): URLs end up in proxy and server logs, so a secret there is already leaked, and
 * answering 200 would teach the client it is fine. `grant_type` and the `access_token` of
 * /oauth2/invalidate_token in the query stay accepted: the service spec shows both.
 */
export function refuseCredentialsInUrl(path: string, rawUrl: string): void {
  const queryStart = rawUrl.indexOf('?')
  if (queryStart === -1) return
  const allowed = PUBLIC_ON_PATH[path] ?? []
  const forbidden = [...SECRET_EVERYWHERE, ...(SECRET_ON_PATH[path] ?? [])].filter((name) => !allowed.includes(name))
  for (const piece of rawUrl.slice(queryStart + 1).split('&')) {
    const name = parameterName(piece)
    if (name !== undefined && forbidden.includes(name)) {
      throw new ServiceError(E.unableToVerifyCredentials, { detail: `${name} in the URL` })
    }
  }
}

/** The decoded name of one `name=value` piece; undefined when it is malformed (the route refuses those). */
function parameterName(piece: string): string | undefined {
  const eq = piece.indexOf('=')
  try {
    return percentDecode(eq === -1 ? piece : piece.slice(0, eq), { plusAsSpace: true })
  } catch {
    return undefined
  }
}
