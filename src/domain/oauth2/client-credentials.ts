import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { parseBasicCredentials } from '../../protocol/oauth2/basic-credentials.ts'
import type { AppRecord } from '../../storage/records.ts'
import { authenticateClient } from '../client-authentication.ts'
import type { DomainDeps } from '../deps.ts'
import { param } from '../request.ts'
import { appIfKeyWorks } from '../key-grace.ts'

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
 * The app these credentials belong to (the shared step, src/domain/client-authentication.ts), or
 * 403 code 99 whatever failed, as X answers.
 */
export async function authenticateAppClient(
  deps: Pick<DomainDeps, 'stores' | 'observe' | 'clock'>,
  credentials: ClientCredentials | undefined,
  options: { requireResourceServer?: boolean } = {},
): Promise<AppRecord> {
  if (!credentials) throw new ServiceError(E.unableToVerifyCredentials, { detail: 'no client credentials' })
  const app = appIfKeyWorks(await deps.stores.apps.findByConsumerKey(credentials.clientId), deps.clock.nowMs())
  const claimed = { secrets: [app?.consumerSecret ?? null], isPublic: false, app: async () => app }
  const authenticated = await authenticateClient(deps, claimed, credentials.clientSecret, options)
  if (authenticated.refusal) throw new ServiceError(E.unableToVerifyCredentials, { detail: 'client credentials refused' })
  return authenticated.app
}
