/** Row types shared by the domain and every storage adapter (camelCase; wire names live at the edges). */

export const ACCESS_LEVELS = ['read', 'read-write', 'read-write-directmessages'] as const
export type AccessLevel = (typeof ACCESS_LEVELS)[number]

export const APP_TYPES = ['web', 'desktop'] as const
export type AppType = (typeof APP_TYPES)[number]

export type SignatureMethodName = 'HMAC-SHA1' | 'HMAC-SHA256' | 'PLAINTEXT'

export interface UserRecord {
  id: string
  screenName: string
  name: string
  passwordHash: string
  createdAtMs: number
}

export interface AppRecord {
  id: string
  name: string
  description: string
  website: string
  ownerId: string
  consumerKey: string
  consumerSecret: string
  callbackUrls: string[]
  accessLevel: AccessLevel
  type: AppType
  isSignInEnabled: boolean
  signatureMethods: SignatureMethodName[]
  isSuspended: boolean
  isResourceServer: boolean
  createdAtMs: number
  updatedAtMs: number
}

/**
 * issued → authorized (a person allowed it; a verifier exists) → used (exchanged once);
 * issued → denied (the person cancelled); authorized → dead (too many wrong verifiers).
 */
export type RequestTokenStatus = 'issued' | 'authorized' | 'used' | 'denied' | 'dead'

export interface RequestTokenRecord {
  token: string
  secret: string
  appId: string
  /** A registered callback URL (with the app's own query) or the literal `oob`. */
  callback: string
  accessLevel: AccessLevel
  status: RequestTokenStatus
  userId: string | null
  verifierFailures: number
  createdAtMs: number
  expiresAtMs: number
}

export interface AccessTokenRecord {
  token: string
  secret: string
  appId: string
  userId: string
  accessLevel: AccessLevel
  createdAtMs: number
  revokedAtMs: number | null
}

export interface BearerTokenRecord {
  token: string
  appId: string
  createdAtMs: number
  revokedAtMs: number | null
}
