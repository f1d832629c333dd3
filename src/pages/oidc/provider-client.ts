// The OpenID Connect relying party of one upstream provider (docs/accounts.md), by openid-client:
// discovery (kept once it succeeded, tried again after a failure), the authorization code flow with
// PKCE S256, `state` and `nonce`, the code exchange with the client secret, and the ID token's checks
// (signature by the provider's JWKS, iss, aud, exp, nonce, auth_time after `max_age`).
import * as oidc from 'openid-client'
import type { OidcProviderConfig } from '../../config/oidc-providers.ts'
import type { UpstreamIdentity } from '../../domain/accounts/linked-sign-in.ts'

/** One provider of `--oidc-providers`, as the settings checked it. */
export type OidcProvider = OidcProviderConfig

/** How long a request to the provider may take. */
const TIMEOUT_SECONDS = 10

/** The provider refused, or answered what its checks refuse: the sign-in did not succeed. */
export class UpstreamSignInFailed extends Error {
  override name = 'UpstreamSignInFailed'
}

/** The provider could not be reached or described itself wrongly (discovery). */
export class UpstreamUnavailable extends Error {
  override name = 'UpstreamUnavailable'
}

/** What a sign-in's start sends to the provider, and what is kept to check its return. */
export interface AuthorizationStart {
  state: string
  codeVerifier: string
  nonce: string
  redirectUri: string
  forceLogin: boolean
  loginHint?: string | undefined
}

/** The client's authentication at the token endpoint, as the provider entry says. */
function clientAuthentication(provider: OidcProvider): oidc.ClientAuth {
  return provider.tokenEndpointAuthMethod === 'client_secret_post' ? oidc.ClientSecretPost(provider.clientSecret) : oidc.ClientSecretBasic(provider.clientSecret)
}

export class ProviderClient {
  private configuration: Promise<oidc.Configuration> | undefined

  constructor(readonly provider: OidcProvider) {}

  /** The provider's configuration, discovered once; a failed discovery is forgotten so the next sign-in tries again. */
  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.provider.issuer)
      // Plain http only where the settings allow it: a provider on this machine.
      const execute = issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []
      this.configuration = oidc
        .discovery(issuer, this.provider.clientId, this.provider.clientSecret, clientAuthentication(this.provider), { execute, timeout: TIMEOUT_SECONDS })
        .catch((error: unknown) => {
          this.configuration = undefined
          throw new UpstreamUnavailable(describe(error))
        })
    }
    return this.configuration
  }

  /** The provider's authorization URL for a sign-in with these values. */
  async authorizationUrl(start: AuthorizationStart): Promise<URL> {
    const configuration = await this.discover()
    const parameters: Record<string, string> = {
      redirect_uri: start.redirectUri,
      scope: this.provider.scopes,
      state: start.state,
      nonce: start.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(start.codeVerifier),
      code_challenge_method: 'S256',
    }
    if (start.forceLogin) Object.assign(parameters, { prompt: 'login', max_age: '0' })
    if (start.loginHint) parameters.login_hint = start.loginHint
    return oidc.buildAuthorizationUrl(configuration, parameters)
  }

  /**
   * The identity of a returning browser's answer (`callbackUrl`, with its query): the code exchanged
   * and the ID token checked against what the start kept; its claims completed by the UserInfo
   * endpoint when the provider has one. UpstreamSignInFailed when anything is refused.
   */
  async identityOf(callbackUrl: URL, start: Omit<AuthorizationStart, 'redirectUri' | 'loginHint'>): Promise<UpstreamIdentity> {
    const configuration = await this.discover()
    let claims: Record<string, unknown>
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: start.codeVerifier,
        expectedNonce: start.nonce,
        expectedState: start.state,
        idTokenExpected: true,
        ...(start.forceLogin ? { maxAge: 0 } : {}),
      })
      const idClaims = tokens.claims()
      if (!idClaims) throw new UpstreamSignInFailed('no ID token')
      claims = { ...idClaims }
      if (configuration.serverMetadata().userinfo_endpoint) {
        const userInfo = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)
        claims = { ...userInfo, ...idClaims }
        // An address and whether it was verified come from one source: never one's address with the other's word.
        const emailSource = idClaims.email !== undefined ? idClaims : userInfo
        claims.email = emailSource.email
        claims.email_verified = emailSource.email_verified
      }
    } catch (error) {
      throw error instanceof UpstreamSignInFailed ? error : new UpstreamSignInFailed(describe(error))
    }
    return this.identityFromClaims(claims)
  }

  private identityFromClaims(claims: Record<string, unknown>): UpstreamIdentity {
    const text = (name: string) => (typeof claims[name] === 'string' ? (claims[name] as string) : undefined)
    return {
      provider: this.provider.id,
      subject: text('sub') ?? '',
      screenNameClaim: text(this.provider.screenNameClaim),
      name: text(this.provider.nameClaim),
      email: text('email'),
      isEmailVerified: claims.email_verified === true,
    }
  }
}

/**
 * Why a call to the provider failed, for the log: the library's message and code, and the
 * provider's `error` (never its description's tokens: the library's messages name no code or token).
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown failure'
  const parts = [error.name, (error as { code?: unknown }).code, error.message.slice(0, 200), (error as { error?: unknown }).error]
  return parts.filter((part) => typeof part === 'string' && part.length > 0).join(': ')
}
