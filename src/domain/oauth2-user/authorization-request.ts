import { E, REDIRECT_ERRORS, type RedirectErrorDef } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { parseFormEncoded } from '../../protocol/form.ts'
import { challengeMethod, isCodeChallenge, type ChallengeMethod } from '../../protocol/oauth2/pkce.ts'
import { parseScopes, type Scope } from '../../protocol/oauth2/scopes.ts'
import type { AppRecord, OAuth2ClientRecord, UserRecord } from '../../storage/records.ts'
import type { DomainDeps } from '../deps.ts'
import { findClient } from './clients.ts'
import { usableScopes } from './grant-scopes.ts'

/**
 * GET /i/oauth2/authorize (RFC 6749 §4.1.1, RFC 7636 §4.3, twitter-behaviour §9): the request a
 * client sends the person's browser with, checked in the RFC's order. A client or redirect URI
 * that is not known is never redirected to (§4.1.2.1: the person sees an error page); any other
 * fault goes back to the redirect URI as an error, with the state.
 */

/**
 * The parameters of an authorization request, as the page carries them from GET to its form.
 * `force_login=true` (as on X's OAuth 1.0a pages) or OpenID Connect's `prompt=login` asks the person
 * to sign in again even with a live session.
 */
export const AUTHORIZATION_PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'force_login', 'prompt'] as const
export type AuthorizationParameters = Partial<Record<(typeof AUTHORIZATION_PARAMETERS)[number], string>>

export interface AuthorizationRequest {
  app: AppRecord
  owner: UserRecord | undefined
  client: OAuth2ClientRecord
  redirectUri: string
  scopes: Scope[]
  state: string
  codeChallenge: string
  challengeMethod: ChallengeMethod
  /** Sign in again even with a live session (force_login=true, or prompt=login). */
  forceLogin: boolean
  /** The parameters as given, for the consent form to send back. */
  parameters: AuthorizationParameters
}

/** A refusal names its RFC 6749 §4.1.2.1 error and description too, for callers that answer no redirect (the test kit). */
export type AuthorizationCheck =
  | { outcome: 'valid'; request: AuthorizationRequest }
  | { outcome: 'refused'; redirectTo: string; refusal: RedirectErrorDef; description: string }

/** The first value of each parameter (a repeat never changes which one is used). */
export function authorizationParameters(pairs: Iterable<[string, string]>): AuthorizationParameters {
  const parameters: AuthorizationParameters = {}
  for (const [name, value] of pairs) {
    if ((AUTHORIZATION_PARAMETERS as readonly string[]).includes(name) && !(name in parameters)) parameters[name as keyof AuthorizationParameters] = value
  }
  return parameters
}

export const parametersOfQuery = (query: string): AuthorizationParameters => authorizationParameters(parseFormEncoded(query))

/** `redirectUri` with the answer's parameters added to its query (§4.1.2: its own query kept). */
export function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.append(name, value)
  return url.href
}

/** An error answer at the redirect URI (§4.1.2.1). */
function refused(redirectUri: string, refusal: RedirectErrorDef, description: string, state: string | undefined): AuthorizationCheck {
  return { outcome: 'refused', redirectTo: redirectWith(redirectUri, { error: refusal.error, error_description: description, state }), refusal, description }
}

/** force_login=true or 1 (twitter-api-v2 spells it so on OAuth 1.0a), or `login` among prompt's values (OpenID Connect). */
function asksToSignIn(parameters: AuthorizationParameters): boolean {
  return /^(true|1)$/i.test(parameters.force_login ?? '') || (parameters.prompt ?? '').split(' ').includes('login')
}

export async function checkAuthorizationRequest(deps: Pick<DomainDeps, 'stores'>, parameters: AuthorizationParameters): Promise<AuthorizationCheck> {
  const clientId = parameters.client_id
  const client = clientId ? await findClient(deps, clientId) : undefined
  const app = client && (await deps.stores.apps.findById(client.appId))
  if (!client || !app) throw new ServiceError(E.oauth2UnknownClient, { detail: 'unknown client_id' })
  const redirectUri = parameters.redirect_uri
  // Compared exactly, as X does: not a prefix, not with another query.
  assertThat(redirectUri !== undefined && app.callbackUrls.includes(redirectUri), E.oauth2RedirectNotRegistered, { detail: 'redirect_uri not registered' })
  assertThat(!app.isSuspended, E.appSuspended)
  const { state } = parameters
  if (parameters.response_type !== 'code') return refused(redirectUri, REDIRECT_ERRORS.unsupportedResponseType, 'response_type must be code', state)
  if (!state) return refused(redirectUri, REDIRECT_ERRORS.invalidRequest, 'state is required', state)
  const challenge = parameters.code_challenge
  if (!challenge || !isCodeChallenge(challenge)) return refused(redirectUri, REDIRECT_ERRORS.invalidRequest, 'code_challenge is required: 43 to 256 unreserved characters', state)
  const method = challengeMethod(parameters.code_challenge_method)
  if (!method) return refused(redirectUri, REDIRECT_ERRORS.invalidRequest, 'code_challenge_method must be S256 or plain', state)
  const parsed = parseScopes(parameters.scope ?? '')
  if ('unknown' in parsed) return refused(redirectUri, REDIRECT_ERRORS.invalidScope, `unknown scope: ${parsed.unknown.slice(0, 64)}`, state)
  if (parsed.scopes.length === 0) return refused(redirectUri, REDIRECT_ERRORS.invalidScope, 'scope is required', state)
  const usable = usableScopes(parsed.scopes, app.accessLevel)
  const beyondLevel = parsed.scopes.filter((scope) => !usable.includes(scope))
  if (beyondLevel.length > 0) return refused(redirectUri, REDIRECT_ERRORS.invalidScope, `this app may only read: ${beyondLevel.join(' ')} needs write access`, state)
  const owner = await deps.stores.users.findById(app.ownerId)
  return {
    outcome: 'valid',
    request: { app, owner, client, redirectUri, scopes: parsed.scopes, state, codeChallenge: challenge, challengeMethod: method, forceLogin: asksToSignIn(parameters), parameters },
  }
}
