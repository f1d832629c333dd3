import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { AccessLevel, AccessTokenRecord } from '../../storage/records.ts'
import { recordAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'

/** How an access token was handed out, for the audit trail. */
export interface IssueContext {
  via: 'exchange' | 'owner_token'
  address?: string | undefined
}

/**
 * The access token of a person for an app at a level: the live one if there is one, else a new
 * `<user_id>-<random>` token that does not expire. The same person authorizing the same app at the
 * same level again gets the same token back until it is invalidated. Every hand-out is audited.
 */
export async function issueOrReuseAccessToken(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  grant: { appId: string; userId: string; accessLevel: AccessLevel },
  context: IssueContext,
): Promise<AccessTokenRecord> {
  const candidate: AccessTokenRecord = {
    token: `${grant.userId}-${randomAlphanumeric(30)}`,
    secret: randomAlphanumeric(45),
    appId: grant.appId,
    userId: grant.userId,
    accessLevel: grant.accessLevel,
    createdAtMs: deps.clock.nowMs(),
    revokedAtMs: null,
  }
  const issued = await deps.stores.accessTokens.issueOrReuse(candidate)
  await recordAudit(deps, {
    event: 'access_token.issued',
    appId: issued.appId,
    userId: issued.userId,
    address: context.address,
    detail: { access_level: issued.accessLevel, via: context.via, reused: issued.token !== candidate.token },
  })
  return issued
}
