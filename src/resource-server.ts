import { composeDomain } from './composition/root.ts'
import { loadConfig } from './config/load.ts'
import type { SettingName } from './config/settings.ts'
import type { DomainDeps } from './domain/deps.ts'
import { identifyCaller, type TokenKind } from './domain/identify-caller.ts'
import type { AccessLevel } from './storage/records.ts'

export interface ApiRequest {
  method: string
  /** The URL as the client used it, scheme and host included: signatures cover it. */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The raw body; only a form body (application/x-www-form-urlencoded) takes part in signatures. */
  body?: string | Buffer
}

export interface VerifiedCaller {
  context: 'app' | 'user'
  /** The credential presented: OAuth 1.0a with an access token or the consumer alone, an app-only bearer token, an OAuth 2.0 user token. */
  tokenKind: TokenKind
  appId: string
  consumerKey: string
  appName: string
  /** For an OAuth 2.0 user access token, what its `scopes` amount to (read without a write scope): check `scopes`. */
  accessLevel: AccessLevel
  userId?: string
  screenName?: string
  /** An OAuth 2.0 user access token's scopes within its app's current level (X's, e.g. `tweet.read`): require the one your route needs. */
  scopes?: string[]
}

export interface LatchkeyVerifier {
  /** Who is calling, or throws a ServiceError carrying Twitter's status, code and message. */
  verify(request: ApiRequest): Promise<VerifiedCaller>
  close(): Promise<void>
}

const header = (headers: ApiRequest['headers'], name: string) => {
  const value = headers[name] ?? headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/**
 * The verifier for resource servers written in Node.js that share Latchkey's storage and keyring
 * (API processes should use createRemoteVerifier instead: docs/security.md says why): it reads the
 * same settings as `latchkey serve` (database, config file, LATCHKEY_* variables) and runs the very
 * checks the service's own routes run. Give every process the same Redis when there are several,
 * or a nonce seen by one process is not seen by another.
 */
export async function createVerifier(
  options: { env?: Record<string, string | undefined>; configFile?: string; settings?: Partial<Record<SettingName, unknown>> } = {},
): Promise<LatchkeyVerifier> {
  const config = loadConfig({ env: options.env ?? process.env, file: options.configFile, flags: options.settings })
  const deps: DomainDeps = await composeDomain(config)
  return {
    async verify(request) {
      const url = new URL(request.url)
      // A resource server's own API is its to limit: the call is charged to no Latchkey endpoint.
      const { caller } = await identifyCaller(deps, {
        method: request.method.toUpperCase(),
        scheme: url.protocol.slice(0, -1),
        host: url.host,
        path: url.pathname,
        query: url.search.slice(1),
        authorization: header(request.headers, 'authorization'),
        contentType: header(request.headers, 'content-type'),
        body: request.body,
        isSecure: url.protocol === 'https:',
      }, null)
      return {
        context: caller.context,
        tokenKind: caller.kind,
        appId: caller.app.id,
        consumerKey: caller.app.consumerKey,
        appName: caller.app.name,
        accessLevel: caller.accessLevel,
        ...(caller.context === 'user' ? { userId: caller.user.id, screenName: caller.user.screenName } : {}),
        ...(caller.context === 'user' && caller.scopes ? { scopes: caller.scopes } : {}),
      }
    },
    close: () => deps.runtime.close(),
  }
}
