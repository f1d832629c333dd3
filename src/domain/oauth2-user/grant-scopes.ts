import { isWriteScope } from '../../protocol/oauth2/scopes.ts'
import type { AccessLevel } from '../../storage/records.ts'

/**
 * The scopes of a grant (or of a request for one) that its app may use now: an app whose access
 * level is `read` uses none that writes, as on X. Read at every use, never stored: lowering the
 * level takes the write scopes from every grant at once (token answers, introspection, the
 * verifier), and raising it again gives back only what the person allowed.
 */
export function usableScopes<S extends string>(scopes: readonly S[], level: AccessLevel): S[] {
  return level === 'read' ? scopes.filter((scope) => !isWriteScope(scope)) : [...scopes]
}

/**
 * An OAuth 2.0 user token's scopes as an OAuth 1.0a access level, for callers that read
 * `accessLevel`: `read` without a usable write scope; with one, `read-write`, or
 * `read-write-directmessages` when the app has that level and the token a `dm.` scope.
 */
export function accessLevelOfScopes(scopes: readonly string[], level: AccessLevel): AccessLevel {
  const usable = usableScopes(scopes, level)
  if (!usable.some(isWriteScope)) return 'read'
  return level === 'read-write-directmessages' && usable.some((scope) => scope.startsWith('dm.')) ? 'read-write-directmessages' : 'read-write'
}
