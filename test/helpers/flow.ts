import type { DomainDeps } from '../../src/domain/deps.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { signedFetch, type Transport } from './oauth1-client.ts'

/**
 * Steps one and two of the flow for tests of step three: a real request_token call, then the
 * person's approval recorded through the store with a verifier the test knows (the browser step
 * itself is tested in test/pages and test/e2e).
 */
export async function authorizedRequestToken(
  server: { url: string; domain: DomainDeps; transport?: Transport },
  app: AppRecord,
  user: UserRecord,
  options: { callback?: string; query?: string; verifier?: string } = {},
): Promise<{ token: string; secret: string; verifier: string }> {
  const { domain } = server
  const answer = await signedFetch(
    {
      consumer: { key: app.consumerKey, secret: app.consumerSecret },
      url: `${server.url}/oauth/request_token${options.query ?? ''}`,
      oauth: { oauth_callback: options.callback ?? 'oob' },
    },
    server.transport,
  )
  if (answer.status !== 200) throw new Error(`request_token answered ${answer.status}: ${answer.text}`)
  const token = answer.form.oauth_token as string
  const verifier = options.verifier ?? `verifier${Math.random().toString(36).slice(2)}`
  const ok = await domain.stores.requestTokens.authorize(token, user.id, verifier, domain.clock.nowMs())
  if (!ok) throw new Error('could not authorize the request token')
  return { token, secret: answer.form.oauth_token_secret as string, verifier }
}
