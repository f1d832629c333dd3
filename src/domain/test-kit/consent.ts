import { E, type RedirectErrorDef } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import type { UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { approveAuthorization, denyAuthorization, loadConsent, type AuthorizationFlow } from '../oauth1/authorization.ts'
import { authorizationParameters, checkAuthorizationRequest } from '../oauth2-user/authorization-request.ts'
import { approveAuthorizationRequest, denyAuthorizationRequest } from '../oauth2-user/consent.ts'
import { findByScreenName } from '../registry/users.ts'

/**
 * Consent without a browser (the test kit, issue 47): a person's answer on a consent page, given by
 * a test instead of a click, through the pages' own use cases and checks. The answer is what the
 * page would have done: the callback it redirects to, or the PIN it shows.
 */

export type Decision = 'allow' | 'deny'

/** The page's outcome: a redirect to the app, the PIN page (oob, allowed) or the cancelled page (oob, denied). */
export type ConsentOutcome = { location: string } | { pin: string } | { denied: true }

type Deps = Pick<DomainDeps, 'stores' | 'clock' | 'observe'>

/**
 * The person a test consents as. Unknown: 404. Disabled: 400, since the page would never let them
 * in (a disabled person's sign-in fails and their sessions have ended, src/domain/sign-in.ts).
 */
export async function personWhoConsents(deps: Pick<DomainDeps, 'stores'>, screenName: string): Promise<UserRecord> {
  const person = await findByScreenName(deps, screenName.replace(/^@/, ''))
  if (!person) throw new ServiceError(E.notFound, { message: `no person with screen name ${screenName.slice(0, 64)}`, field: 'screenName' })
  assertThat(!person.isDisabled, E.invalidParameter, { message: `@${person.screenName} is disabled and cannot sign in to consent`, field: 'screenName' })
  return person
}

/**
 * OAuth 1.0a: the answer to a request token, as the authorize page (or, with `flow`, the
 * authenticate page) gives it. The token is checked first, as the page loads it before anyone signs in.
 */
export async function consentToRequestToken(
  deps: Deps,
  input: { oauthToken: string; screenName: string; decision: Decision; address?: string; flow?: AuthorizationFlow },
): Promise<ConsentOutcome> {
  const flow = input.flow ?? 'authorize'
  const { requestToken } = await loadConsent(deps, { token: input.oauthToken, flow })
  const person = await personWhoConsents(deps, input.screenName)
  const answer = { token: requestToken.token, flow, userId: person.id, ...(input.address === undefined ? {} : { address: input.address }) }
  if (input.decision === 'deny') {
    const denied = await denyAuthorization(deps, answer)
    return 'oob' in denied ? { denied: true } : { location: denied.redirectTo }
  }
  const approved = await approveAuthorization(deps, answer)
  return 'pin' in approved ? { pin: approved.pin } : { location: approved.redirectTo }
}

/** A request the page would send back to the app with an error: here, a 400 naming that error. */
function refusedAtRedirect(refusal: RedirectErrorDef, description: string): ServiceError {
  return new ServiceError(refusal.otherwise, { message: `the page would send the app ${refusal.error}: ${description}` })
}

/**
 * OAuth 2.0: the answer to an authorization request (the /i/oauth2/authorize parameters as a client
 * sends them), checked as the page checks it: `code` and `state`, or `access_denied` and `state`.
 */
export async function consentToAuthorizationRequest(
  deps: Deps,
  input: { query: Record<string, string | undefined>; screenName: string; decision: Decision; address?: string },
): Promise<{ location: string }> {
  const given = Object.entries(input.query).filter((pair): pair is [string, string] => pair[1] !== undefined)
  const check = await checkAuthorizationRequest(deps, authorizationParameters(given))
  if (check.outcome === 'refused') throw refusedAtRedirect(check.refusal, check.description)
  const person = await personWhoConsents(deps, input.screenName)
  const answer = { userId: person.id, address: input.address ?? null }
  const { redirectTo } =
    input.decision === 'deny' ? await denyAuthorizationRequest(deps, check.request, answer) : await approveAuthorizationRequest(deps, check.request, answer)
  return { location: redirectTo }
}
