import { randomAlphanumeric } from '../../protocol/secrets.ts'
import type { AccessLevel, AccessTokenRecord } from '../../storage/records.ts'
import type { TransactionStores } from '../../storage/types.ts'
import { recordAudit } from '../audit.ts'
import type { Clock } from '../clock.ts'
import type { DomainDeps } from '../deps.ts'

/** How an access token was handed out, for the audit trail. */
export interface IssueContext {
  via: 'exchange' | 'owner_token' | 'seed'
  address?: string | undefined
  /** The values of a new token when it is made (a seed file's fixed ones); random otherwise. */
  values?: { token?: string | undefined; secret?: string | undefined } | undefined
}

/**
 * The access token of a person for an app at a level: the live one if there is one, else a new
 * `<user_id>-<random>` token that does not expire. The same person authorizing the same app at the
 * same level again gets the same token back until it is invalidated. Every hand-out is audited, in
 * the same transaction.
 */
export function issueOrReuseAccessToken(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  grant: AccessGrant,
  context: IssueContext,
): Promise<AccessTokenRecord> {
  return deps.stores.transaction((tx) => handOutAccessToken(tx, deps.clock, grant, context))
}

export interface AccessGrant {
  appId: string
  userId: string
  accessLevel: AccessLevel
}

/** issueOrReuseAccessToken's work, in a unit of work the caller opened (the exchange adds its own steps to it). */
export async function handOutAccessToken(tx: TransactionStores, clock: Clock, grant: AccessGrant, context: IssueContext): Promise<AccessTokenRecord> {
  const { token, reused } = await liveOrNewToken(tx, grant, clock.nowMs(), context.values)
  await recordAudit({ stores: tx, clock }, {
    event: 'access_token.issued',
    appId: token.appId,
    userId: token.userId,
    address: context.address,
    detail: { access_level: token.accessLevel, via: context.via, reused },
  })
  return token
}

/** The live token of the grant, else a new one; new values are drawn only then. */
async function liveOrNewToken(
  tx: TransactionStores,
  grant: AccessGrant,
  nowMs: number,
  values: IssueContext['values'],
): Promise<{ token: AccessTokenRecord; reused: boolean }> {
  const live = await tx.accessTokens.findLive(grant.appId, grant.userId, grant.accessLevel)
  if (live) return { token: live, reused: true }
  const candidate: AccessTokenRecord = {
    token: values?.token ?? `${grant.userId}-${randomAlphanumeric(30)}`,
    secret: values?.secret ?? randomAlphanumeric(45),
    appId: grant.appId,
    userId: grant.userId,
    accessLevel: grant.accessLevel,
    createdAtMs: nowMs,
    revokedAtMs: null,
  }
  // Another instance may have issued one since: then that one is handed out.
  const token = await tx.accessTokens.issueOrReuse(candidate)
  return { token, reused: token.token !== candidate.token }
}
