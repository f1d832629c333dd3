import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { randomAlphanumeric, randomDigits } from '../../protocol/secrets.ts'
import type { AppRecord, RequestTokenRecord, UserRecord } from '../../storage/records.ts'
import { callbackOrigin, changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'

/**
 * The browser step of OAuth 1.0a (service-spec §4.2–4.3, twitter-behaviour §2.2): load what the
 * consent page shows, then approve (a verifier or PIN) or deny (the token dies).
 */

export type AuthorizationFlow = 'authorize' | 'authenticate'

type Deps = Pick<DomainDeps, 'stores' | 'clock'>

export interface Consent {
  requestToken: RequestTokenRecord
  app: AppRecord
  /** Undefined only if the owner's record is gone. */
  owner: UserRecord | undefined
}

const VERIFIER_LENGTH = 32
const PIN_LENGTH = 7
/** Longer than any token we issue; such a value is refused without a look-up. */
const MAX_TOKEN_LENGTH = 200

export const isOob = (requestToken: RequestTokenRecord): boolean => requestToken.callback === 'oob'

function assertUsable(requestToken: RequestTokenRecord, nowMs: number): void {
  // A token that was approved, used, cancelled or killed can't come back, whatever its age.
  assertThat(requestToken.status === 'issued', E.requestTokenUsed, { detail: `status ${requestToken.status}` })
  assertThat(requestToken.expiresAtMs > nowMs, E.requestTokenExpired)
}

/** The checks, in order: token given, known, still `issued` and unexpired; app active; flow allowed. */
export async function loadConsent(deps: Deps, input: { token: string | undefined; flow: AuthorizationFlow }): Promise<Consent> {
  assertThat(input.token, E.requestTokenMissing)
  assertThat(input.token.length <= MAX_TOKEN_LENGTH, E.requestTokenUnknown)
  const requestToken = await deps.stores.requestTokens.findByToken(input.token)
  assertThat(requestToken, E.requestTokenUnknown)
  assertUsable(requestToken, deps.clock.nowMs())
  const app = await deps.stores.apps.findById(requestToken.appId)
  assertThat(app, E.requestTokenUnknown, { detail: 'app of the request token is gone' })
  assertThat(!app.isSuspended, E.appSuspended)
  // service-spec §4.3: desktop apps must use authorize.
  assertThat(input.flow === 'authorize' || app.type !== 'desktop', E.desktopAppCannotAuthenticate)
  const owner = await deps.stores.users.findById(app.ownerId)
  return { requestToken, app, owner }
}

/**
 * authenticate's shortcut (service-spec §4.3): the person is sent back without being asked when
 * the app has sign-in enabled, nobody asked for force_login, and they "already granted" the app,
 * which we define as: a live access token exists for this app, this person and the requested level.
 */
export async function isAlreadyGranted(
  deps: Pick<DomainDeps, 'stores'>,
  input: { consent: Consent; flow: AuthorizationFlow; userId: string | undefined; forceLogin: boolean },
): Promise<boolean> {
  const { app, requestToken } = input.consent
  if (input.flow !== 'authenticate' || !app.isSignInEnabled || input.forceLogin || !input.userId) return false
  const live = await deps.stores.accessTokens.findLive(app.id, input.userId, requestToken.accessLevel)
  return live !== undefined
}

/**
 * Appends pairs to a callback's own query, keeping that query as it was written
 * (`?state=x` → `?state=x&oauth_token=…`); the callback was matched at request_token time.
 */
export function addToQuery(callback: string, pairs: Array<[string, string]>): string {
  const url = new URL(callback)
  const extra = new URLSearchParams(pairs).toString()
  url.search = url.search.length > 1 ? `${url.search.slice(1)}&${extra}` : extra
  return url.href
}

/** When a conditional update loses, says why in the person's words (expired or used). */
async function refusal(deps: Deps, token: string): Promise<ServiceError> {
  const current = await deps.stores.requestTokens.findByToken(token)
  if (!current) return new ServiceError(E.requestTokenUnknown)
  const expired = current.status === 'issued' && current.expiresAtMs <= deps.clock.nowMs()
  return new ServiceError(expired ? E.requestTokenExpired : E.requestTokenUsed)
}

/** The person allowed it: a one-time verifier, sent to the callback (web) or shown as a PIN (`oob`). */
export async function approveAuthorization(
  deps: Deps,
  input: {
    token: string
    userId: string
    flow: AuthorizationFlow
    /** The browser's address, for the audit trail. */
    address?: string
    /** authenticate's shortcut: the person was sent back without being asked. */
    isAutomatic?: boolean
  },
): Promise<{ redirectTo: string } | { pin: string }> {
  const { requestToken } = await loadConsent(deps, input)
  const verifier = isOob(requestToken) ? randomDigits(PIN_LENGTH) : randomAlphanumeric(VERIFIER_LENGTH)
  // The approval and its audit row in one unit: neither is kept without the other.
  const ok = await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.requestTokens.authorize(requestToken.token, input.userId, verifier, deps.clock.nowMs()))) return false
    await audit({
      event: 'consent.granted',
      appId: requestToken.appId,
      userId: input.userId,
      address: input.address,
      detail: {
        flow: input.flow,
        access_level: requestToken.accessLevel,
        callback: callbackOrigin(requestToken.callback),
        automatic: input.isAutomatic === true,
      },
    })
    return true
  })
  if (!ok) throw await refusal(deps, requestToken.token)
  if (isOob(requestToken)) return { pin: verifier }
  return {
    redirectTo: addToQuery(requestToken.callback, [
      ['oauth_token', requestToken.token],
      ['oauth_verifier', verifier],
    ]),
  }
}

/**
 * The person cancelled: the token dies, and the callback gets `denied=<token>` with no
 * oauth_token or oauth_verifier (twitter-behaviour §2.2); `oob` apps get a page instead.
 */
export async function denyAuthorization(
  deps: Deps,
  input: {
    token: string
    flow: AuthorizationFlow
    /** The person signed in to the browser session, if any (Cancel needs no sign-in). */
    userId?: string | undefined
    address?: string
  },
): Promise<{ redirectTo: string } | { oob: true }> {
  const { requestToken } = await loadConsent(deps, input)
  const ok = await changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.requestTokens.deny(requestToken.token, deps.clock.nowMs()))) return false
    await audit({
      event: 'consent.denied',
      appId: requestToken.appId,
      userId: input.userId,
      address: input.address,
      detail: { flow: input.flow, access_level: requestToken.accessLevel, callback: callbackOrigin(requestToken.callback) },
    })
    return true
  })
  if (!ok) throw await refusal(deps, requestToken.token)
  if (isOob(requestToken)) return { oob: true }
  return { redirectTo: addToQuery(requestToken.callback, [['denied', requestToken.token]]) }
}
