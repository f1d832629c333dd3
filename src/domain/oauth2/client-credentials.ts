import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { parseBasicCredentials } from '../../protocol/oauth2/basic-credentials.ts'
import { constantTimeEqual, randomAlphanumeric } from '../../protocol/secrets.ts'
import type { AppRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { param } from '../request.ts'
import { appIfKeyWorks } from '../registry/key-grace.ts'

export interface ClientCredentials {
  clientId: string
  clientSecret: string
}

/**
 * The app's key and secret from HTTP Basic (raw or percent-encoded halves), or from client_id and
 * client_secret in the form body as the npm `oauth` library sends them (RFC 6749 §2.3.1 allows
 * both). Undefined when neither is there.
 */
export function readClientCredentials(authorization: string | undefined, body: Array<[string, string]>): ClientCredentials | undefined {
  const basic = parseBasicCredentials(authorization)
  if (basic) return basic
  const clientId = param(body, 'client_id')
  const clientSecret = param(body, 'client_secret')
  return clientId && clientSecret !== undefined ? { clientId, clientSecret } : undefined
}

/**
 * The app these credentials belong to, or 403 code 99. The secret is compared in constant time,
 * against a dummy when the key is unknown, so the answer's timing says nothing.
 */
export async function authenticateClient(
  deps: Pick<DomainDeps, 'stores' | 'observe' | 'clock'>,
  credentials: ClientCredentials | undefined,
  options: { requireResourceServer?: boolean } = {},
): Promise<AppRecord> {
  if (!credentials) throw new ServiceError(E.unableToVerifyCredentials, { detail: 'no client credentials' })
  const app = appIfKeyWorks(await deps.stores.apps.findByConsumerKey(credentials.clientId), deps.clock.nowMs())
  const matches = constantTimeEqual(credentials.clientSecret, app?.consumerSecret ?? randomAlphanumeric(50))
  const isUsable = app !== undefined && matches && !app.isSuspended && (!options.requireResourceServer || app.isResourceServer)
  if (!isUsable) throw new ServiceError(E.unableToVerifyCredentials, { detail: 'client credentials refused' })
  deps.observe?.callerApp?.(app.id, app.consumerKey)
  return app
}
