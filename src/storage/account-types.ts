/**
 * Existing accounts' stores (docs/accounts.md): which upstream identity is which person, and the
 * sign-ins in progress at an upstream provider or at the platform's login page. Values a browser or
 * platform presents (a `state`, a `login_challenge`, the browser's cookie) are stored only as keyed
 * hashes; the PKCE verifier and nonce are sealed.
 */

/** The provider id of login delegation's identities: the platform's own login page. */
export const DELEGATED_LOGIN_PROVIDER = 'login'

/** An upstream identity (provider and subject) linked to one person. */
export interface IdentityLinkRecord {
  /** The provider's id in the settings, or DELEGATED_LOGIN_PROVIDER. */
  provider: string
  /** The provider's stable id of the person (the ID token's `sub`; the platform's subject). */
  subject: string
  userId: string
  createdAtMs: number
  lastSignInAtMs?: number
}

export interface IdentityLinkStore {
  /** Inserts the link; false when the provider's subject is already linked (to anyone). */
  create(link: IdentityLinkRecord): Promise<boolean>
  find(provider: string, subject: string): Promise<IdentityLinkRecord | undefined>
  /** Every link of a person, oldest first. */
  listForUser(userId: string): Promise<IdentityLinkRecord[]>
  /** Records a sign-in through the link. */
  touch(provider: string, subject: string, atMs: number): Promise<void>
  /** Removes the link; false when there was none. */
  remove(provider: string, subject: string): Promise<boolean>
}

export type ExternalSignInKind = 'oidc' | 'delegation'

/** What the platform answered to a login challenge (POST /admin/v1/login-challenges/…). */
export type DelegationOutcome =
  | {
      accepted: { subject: string; screenName: string; name?: string | undefined; email?: string | undefined; remember: boolean }
      /** Hex SHA-256 of the `login_verifier` only the accept's `redirect_to` carries: the challenge alone signs no one in. */
      verifierSha256: string
    }
  | { rejected: { error: string; description?: string | undefined } }

/** A sign-in in progress elsewhere, from the redirect out to the browser's return. */
export interface ExternalSignInRecord {
  /** The `state` (OpenID Connect) or `login_challenge` (delegation) value: hashed by the store. */
  id: string
  kind: ExternalSignInKind
  provider: string
  /** The random value of the browser's cookie that started it: hashed by the store. */
  browser: string
  /** The path of this service the browser goes back to once signed in. */
  returnTo: string
  appId?: string | undefined
  loginHint?: string | undefined
  forceLogin: boolean
  /** OpenID Connect: the PKCE verifier and the nonce (sealed by the store). */
  secrets?: { codeVerifier: string; nonce: string } | undefined
  createdAtMs: number
  expiresAtMs: number
  outcome?: DelegationOutcome | undefined
  usedAtMs?: number | undefined
}

/** Why a returning browser's sign-in was refused. */
export type ExternalSignInRefusal = 'unknown' | 'used' | 'expired' | 'other_browser'

export interface ExternalSignInStore {
  create(record: ExternalSignInRecord): Promise<void>
  /** The sign-in of an id (unused or not, expired or not); undefined when none. */
  find(id: string): Promise<ExternalSignInRecord | undefined>
  /** Records the platform's answer once: false when it is used, expired, answered already or unknown. */
  settle(id: string, outcome: DelegationOutcome, nowMs: number): Promise<boolean>
  /**
   * Marks it used, once, before it expires: the record as it was, or why not. A different browser
   * spends it too (and is refused): a challenge another browser has seen is worth nothing after.
   */
  consume(id: string, browser: string, nowMs: number): Promise<{ record: ExternalSignInRecord } | { refused: ExternalSignInRefusal }>
  /** Deletes those expired before `beforeMs`; how many. */
  deleteExpired(beforeMs: number): Promise<number>
}
