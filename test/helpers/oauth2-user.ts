import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before } from 'node:test'
import type { DomainDeps } from '../../src/domain/deps.ts'
import { checkAuthorizationRequest } from '../../src/domain/oauth2-user/authorization-request.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { approveAuthorizationRequest } from '../../src/domain/oauth2-user/consent.ts'
import { issueUserToken, type UserTokenAnswer } from '../../src/domain/oauth2-user/token.ts'
import { findUserTokenHolder } from '../../src/domain/oauth2-user/user-token.ts'
import type { RequestInput } from '../../src/domain/request.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import type { ChallengeMethod } from '../../src/protocol/oauth2/pkce.ts'
import type { AccessLevel, AppRecord, ClientType, UserRecord } from '../../src/storage/records.ts'
import { inputOf, openDomainTier, TIER_URL, type DomainTier } from './domain-tier.ts'
import { makeApp, makeUser } from './fixtures.ts'

// OAuth 2.0 user context in the domain tier: an app's client, a code the person allowed through the
// use cases of the consent page, and token requests as the use cases take them.

export const REDIRECT = 'https://client.example/callback'
let verifiers = 0
/** A fresh PKCE verifier (43 or more unreserved characters). */
export const newVerifier = () => `verifier-${String(++verifiers).padStart(4, '0')}-${'x'.repeat(40)}`
export const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')
export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

export interface OAuth2Client {
  app: AppRecord
  clientId: string
  /** Only a confidential client has one. */
  clientSecret: string | undefined
}

/** An app (read-write unless told) with an OAuth 2.0 client of this type, its callback REDIRECT. */
export async function oauth2Client(domain: DomainDeps, options: { type?: ClientType; accessLevel?: AccessLevel } = {}): Promise<OAuth2Client> {
  const app = await makeApp(domain, { callbackUrls: [REDIRECT], accessLevel: options.accessLevel ?? 'read-write' })
  const change = await setOAuth2Client(domain, { appId: app.id, setting: options.type ?? 'confidential' })
  return { app, clientId: change.client!.clientId, clientSecret: change.newSecret }
}

/** The authorization request's parameters, as the client sends the browser with them (PKCE by S256 unless told). */
export const authorizeParameters = (client: OAuth2Client, verifier: string, scope: string, method: ChallengeMethod = 'S256') => ({
  response_type: 'code',
  client_id: client.clientId,
  redirect_uri: REDIRECT,
  scope,
  state: 'state-1',
  code_challenge: method === 'S256' ? challengeOf(verifier) : verifier,
  code_challenge_method: method,
})

/** A code `person` allowed on the consent page, with its verifier. */
export async function allowedCode(domain: DomainDeps, client: OAuth2Client, person: UserRecord, scope = 'tweet.read users.read offline.access', method: ChallengeMethod = 'S256') {
  const verifier = newVerifier()
  const check = await checkAuthorizationRequest(domain, authorizeParameters(client, verifier, scope, method))
  assert.equal(check.outcome, 'valid', JSON.stringify(check))
  assert.ok(check.outcome === 'valid')
  const { redirectTo } = await approveAuthorizationRequest(domain, check.request, { userId: person.id, address: null })
  return { code: new URL(redirectTo).searchParams.get('code')!, verifier }
}

/** A POST to /2/oauth2/token (or `path`) with these fields, authenticated as `client` (Basic for a confidential one, client_id for a public one). */
export function tokenInput(client: OAuth2Client, fields: Record<string, string>, path = '/2/oauth2/token'): RequestInput {
  const authorization: Record<string, string> = client.clientSecret ? { authorization: basic(client.clientId, client.clientSecret) } : {}
  const body = new URLSearchParams({ ...(client.clientSecret ? {} : { client_id: client.clientId }), ...fields }).toString()
  return inputOf('POST', `${TIER_URL}${path}`, { 'content-type': 'application/x-www-form-urlencoded', ...authorization }, body)
}

/** A code and its verifier, as allowedCode gives them. */
export type IssuedCode = { code: string; verifier: string }

/** The code presented at POST /2/oauth2/token by `client`, with its verifier (and other fields, when given). */
export const redeemCode = (domain: DomainDeps, client: OAuth2Client, issued: IssuedCode, fields: Record<string, string> = {}) =>
  issueUserToken(domain, tokenInput(client, { grant_type: 'authorization_code', code: issued.code, redirect_uri: REDIRECT, code_verifier: issued.verifier, ...fields }))

/** The code exchanged for tokens by `client`. */
export const exchange = async (domain: DomainDeps, client: OAuth2Client, issued: IssuedCode): Promise<UserTokenAnswer> => (await redeemCode(domain, client, issued)).answer

/** A refresh by `client`. */
export const refresh = async (domain: DomainDeps, client: OAuth2Client, refreshToken: string | undefined): Promise<UserTokenAnswer> =>
  (await issueUserToken(domain, tokenInput(client, { grant_type: 'refresh_token', refresh_token: String(refreshToken) }))).answer

/** Awaits `work` and asserts it was refused as a client of /2/oauth2/* sees it: the RFC 6749 §5.2 `error` and the status. */
export async function assertOAuth2Error(work: Promise<unknown>, expected: { error: string; status: number }, message?: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`)
    assert.deepEqual({ error: error.oauth2, status: error.status }, expected, message ?? error.detail ?? error.message)
    return true
  })
}

/** Whether an OAuth 2.0 user access token still finds its holder (/2/users/me would answer it). */
export const isLiveUserToken = async (domain: DomainDeps, accessToken: string): Promise<boolean> => (await findUserTokenHolder(domain, accessToken)) !== undefined

/** The suite of an OAuth 2.0 user-context use case: a domain tier with one person, and its checks bound to it. */
export interface OAuth2UserTier {
  readonly domain: DomainDeps
  readonly clock: DomainTier['clock']
  readonly person: UserRecord
  isLive(accessToken: string): Promise<boolean>
  redeem(client: OAuth2Client, issued: IssuedCode, fields?: Record<string, string>): ReturnType<typeof redeemCode>
}

/**
 * Opens the domain tier and makes its person before the suite's tests, and closes it after: call it
 * at the top of a `describe`; its fields are there from the first test on.
 */
export function oauth2UserTier(): OAuth2UserTier {
  let opened: { tier: DomainTier; person: UserRecord } | undefined
  before(async () => {
    const tier = await openDomainTier()
    opened = { tier, person: (await makeUser(tier.domain)).user }
  })
  after(() => opened?.tier.close())
  const current = () => {
    if (!opened) throw new Error('oauth2UserTier: read inside a test, after `before` opened it')
    return opened
  }
  return {
    get domain() {
      return current().tier.domain
    },
    get clock() {
      return current().tier.clock
    },
    get person() {
      return current().person
    },
    isLive: (accessToken) => isLiveUserToken(current().tier.domain, accessToken),
    redeem: (client, issued, fields) => redeemCode(current().tier.domain, client, issued, fields),
  }
}
