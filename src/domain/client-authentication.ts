// Client authentication, one step for every OAuth 2.0 endpoint that takes client credentials:
// app-only /oauth2/token, introspection and invalidation (the app's consumer key and secret), and
// /2/oauth2/token and revoke (the app's OAuth 2.0 client). Each protocol reads the credentials its
// own way and renders a refusal its own way; how a client is proven is decided here.
import { isSecret } from '../protocol/secrets.ts'
import type { AppRecord } from '../storage/records.ts'
import type { DomainDeps } from './deps.ts'

/** A client id's client as its authentication sees it, whether or not the id is known. */
export interface ClaimedClient {
  /**
   * The secrets that prove the client now, `null` where there is none (an unknown id, a public
   * client, no previous secret in its grace period): every one is compared all the same.
   */
  secrets: ReadonlyArray<string | null>
  /** A public client proves itself by presenting no secret. */
  isPublic: boolean
  /** The client's app, read once its secret matched (undefined: the app is gone). */
  app(): Promise<AppRecord | undefined>
}

/** Why a client was refused: its credentials, its app's suspension, or (introspection) not a resource server. */
export type ClientRefusal = 'credentials' | 'suspended' | 'not_resource_server'

export type ClientAuthentication = { app: AppRecord; refusal?: undefined } | { refusal: ClientRefusal }

/**
 * The app a client proves to be, or why not. `secret` is what the client presented (undefined: none).
 * The secrets are compared in constant time, against dummies where missing (an unknown id too), so the
 * timing says nothing of which ids exist.
 */
export async function authenticateClient(
  deps: Pick<DomainDeps, 'observe'>,
  claimed: ClaimedClient,
  secret: string | undefined,
  options: { requireResourceServer?: boolean } = {},
): Promise<ClientAuthentication> {
  const isAnyRight = claimed.secrets.map((expected) => isSecret(secret ?? '', expected)).includes(true)
  const matches = claimed.isPublic ? secret === undefined : isAnyRight
  const app = matches ? await claimed.app() : undefined
  if (!app) return { refusal: 'credentials' }
  if (app.isSuspended) return { refusal: 'suspended' }
  if (options.requireResourceServer && !app.isResourceServer) return { refusal: 'not_resource_server' }
  deps.observe?.callerApp?.(app.id, app.consumerKey)
  return { app }
}
