import type { Clock } from '../clock.ts'
import type { AppRecord } from '../../storage/records.ts'
import type { AppStore, CredentialLookup, Stores } from '../../storage/types.ts'

/**
 * The stores as the domain sees them once keys can be rotated with a grace period: a consumer key
 * that no app has now is looked for among the rotated-out pairs still in their grace period, and
 * found as its app with that old pair (so its signatures are checked with the old secret). Only
 * keys unknown to the apps table cost the second lookup; current keys are found as before.
 */
export function withPreviousConsumerKeys(stores: Stores, clock: Clock): Stores {
  const apps = stores.apps
  const previous = async (consumerKey: string): Promise<AppRecord | undefined> => {
    const pair = await stores.admin.findPreviousKey(consumerKey)
    if (!pair || pair.expiresAtMs <= clock.nowMs()) return undefined
    const app = await apps.findById(pair.appId)
    return app && { ...app, consumerKey: pair.consumerKey, consumerSecret: pair.consumerSecret }
  }
  const graceful: AppStore = {
    ...apps,
    async findByConsumerKey(consumerKey) {
      return (await apps.findByConsumerKey(consumerKey)) ?? previous(consumerKey)
    },
  }
  const credentials: CredentialLookup = {
    ...stores.credentials,
    async findConsumerWithAccessToken(consumerKey, token) {
      const found = await stores.credentials.findConsumerWithAccessToken(consumerKey, token)
      return found.app ? found : { ...found, app: await previous(consumerKey) }
    },
  }
  return { ...stores, apps: graceful, credentials }
}
