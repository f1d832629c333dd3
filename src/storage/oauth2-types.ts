import type { AuthorizationCodeRecord, OAuth2ClientRecord, OAuth2GrantRecord, OAuth2TokenRecord } from './records.ts'

/**
 * OAuth 2.0 user context: each app's client, authorization codes, grants and their tokens. Codes
 * and tokens are kept only as keyed hashes; single use is a conditional update, so that of two
 * instances redeeming one code or refresh token at once exactly one succeeds.
 */

/** A token to store: the value handed out (kept only as its keyed hash) and its record. */
export interface NewOAuth2Token {
  token: string
  record: OAuth2TokenRecord
}

export type CodeRedemption =
  | { outcome: 'redeemed'; record: AuthorizationCodeRecord }
  /** Redeemed before: `grantId` is what that redemption made (null while it is being made), `record` whom the code was for. */
  | { outcome: 'reused'; grantId: string | null; record: AuthorizationCodeRecord }
  | { outcome: 'unknown' }

/** Each app's OAuth 2.0 client (at most one). */
export interface OAuth2ClientStore {
  findByAppId(appId: string): Promise<OAuth2ClientRecord | undefined>
  findByClientId(clientId: string): Promise<OAuth2ClientRecord | undefined>
  /** The clients of these apps (those that have one), in one lookup: for a page of apps. */
  findByAppIds(appIds: readonly string[]): Promise<OAuth2ClientRecord[]>
  /** Creates or replaces the app's client. */
  save(client: OAuth2ClientRecord): Promise<void>
  /** Removes the app's client; false when it had none. */
  delete(appId: string): Promise<boolean>
}

/** Authorization codes, until redeemed into a grant. */
export interface OAuth2CodeStore {
  create(code: string, record: AuthorizationCodeRecord): Promise<void>
  /** Marks the code redeemed, once: its record the first time, `reused` after (expired or not: the caller decides). */
  redeem(code: string, nowMs: number): Promise<CodeRedemption>
  /** Deletes codes that expired before nowMs; how many. */
  deleteExpired(nowMs: number): Promise<number>
}

/** Grants (what a person allowed an app) with their access and refresh tokens. */
export interface OAuth2GrantStore {
  /** Stores the grant and its first tokens, and names it as what `code` made (none for a seed file's grant). */
  create(grant: OAuth2GrantRecord, tokens: NewOAuth2Token[], code: string | undefined): Promise<void>
  /** The token with its grant, spent, expired or revoked as it is (the caller decides); undefined when unknown. */
  findToken(token: string): Promise<{ token: OAuth2TokenRecord; grant: OAuth2GrantRecord } | undefined>
  /**
   * Spends the refresh token and stores its successors, ending the grant's other live access
   * tokens, all at once; false (and nothing written) when it was already spent.
   */
  rotate(refreshToken: string, successors: NewOAuth2Token[], nowMs: number): Promise<boolean>
  /** Ends the grant and so every token of it; false when it was unknown or already ended. */
  revoke(grantId: string, nowMs: number): Promise<boolean>
  /**
   * Ends every live grant of an app, of a person, or of a person for one app, and deletes the codes
   * of the same not yet redeemed, which would make new ones; how many grants.
   */
  revokeAll(filter: { appId?: string; userId?: string }, nowMs: number): Promise<number>
  /** A person's live grants, newest first. */
  listLive(userId: string): Promise<OAuth2GrantRecord[]>
}
