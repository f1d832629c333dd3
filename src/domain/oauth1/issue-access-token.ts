import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { AccessLevel, AccessTokenRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'

/**
 * The access token of a person for an app at a level: the live one if there is one, else a new
 * `<user_id>-<random>` token that does not expire. The same person authorizing the same app at the
 * same level again gets the same token back until it is invalidated.
 */
export function issueOrReuseAccessToken(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  grant: { appId: string; userId: string; accessLevel: AccessLevel },
): Promise<AccessTokenRecord> {
  return deps.stores.accessTokens.issueOrReuse({
    token: `${grant.userId}-${randomAlphanumeric(30)}`,
    secret: randomAlphanumeric(45),
    appId: grant.appId,
    userId: grant.userId,
    accessLevel: grant.accessLevel,
    createdAtMs: deps.clock.nowMs(),
    revokedAtMs: null,
  })
}
