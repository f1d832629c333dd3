import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type OidcContext = any

/**
 * A real OpenID Connect provider for the tests: node-oidc-provider in this process, on a free
 * loopback port, with its own accounts (findAccount) and its development login page (any password).
 * Consent is granted at once, so a sign-in is: the login form, then back to the client.
 */
export interface ProviderAccount {
  /** Claims besides `sub` (the account id): preferred_username, name, email, email_verified… */
  claims: Record<string, unknown>
  /** Seconds the ID tokens issued to this account live; negative: already expired when issued. */
  idTokenTtlSeconds?: number
}

export interface ProviderClientRegistration {
  clientId: string
  clientSecret: string
  redirectUris: string[]
  /** How it authenticates at the token endpoint; node-oidc-provider's default, Basic, when not given. */
  authMethod?: 'client_secret_basic' | 'client_secret_post' | undefined
}

export interface TestOidcProvider {
  issuer: string
  accounts: Map<string, ProviderAccount>
  /** How each token request authenticated the client: `basic` (an Authorization header) or `body`. */
  tokenRequests: Array<'basic' | 'body'>
  close(): Promise<void>
}

/** A listening socket, its issuer URL known before the provider behind it is made (clients name Latchkey's port). */
export interface ProviderHost {
  issuer: string
  serve(options: { clients: ProviderClientRegistration[]; accounts?: Map<string, ProviderAccount> }): TestOidcProvider
  close(): Promise<void>
}

export async function listenProviderHost(): Promise<ProviderHost> {
  let handler: Parameters<typeof createServer>[1] | undefined
  const server: Server = createServer((request, response) => {
    if (handler) return handler(request, response)
    response.statusCode = 503
    response.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  return {
    issuer,
    close,
    serve({ clients, accounts = new Map() }) {
      const provider = new Provider(issuer, {
        clients: clients.map((client) => ({
          client_id: client.clientId,
          client_secret: client.clientSecret,
          redirect_uris: client.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: client.authMethod ?? 'client_secret_basic',
        })),
        async findAccount(_ctx: unknown, id: string) {
          const account = accounts.get(id)
          if (!account) return undefined
          return { accountId: id, claims: () => ({ sub: id, ...account.claims }) }
        },
        claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'nickname'], email: ['email', 'email_verified'] },
        pkce: { required: () => true, methods: ['S256'] },
        cookies: { keys: ['oidc-test-provider-cookie-key'] },
        ttl: {
          IdToken: (ctx: OidcContext) => accounts.get(String(ctx.oidc.entities.Account?.accountId ?? ctx.oidc.account?.accountId))?.idTokenTtlSeconds ?? 3600,
        },
        // Consent at once: the grant the client asks for (the tests are about the sign-in).
        async loadExistingGrant(ctx: OidcContext) {
          const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! })
          grant.addOIDCScope(String(ctx.oidc.params?.scope ?? 'openid'))
          await grant.save()
          return grant
        },
        features: { devInteractions: { enabled: true } },
      })
      // Its warnings about development keys and interactions are expected here.
      provider.on('server_error', (_ctx: unknown, error: Error) => console.error('oidc-provider server_error', error))
      const tokenRequests: TestOidcProvider['tokenRequests'] = []
      const callback = provider.callback()
      handler = (request, response) => {
        if (request.url?.startsWith('/token')) tokenRequests.push(request.headers.authorization ? 'basic' : 'body')
        return callback(request, response)
      }
      return { issuer, accounts, tokenRequests, close }
    },
  }
}

/** A cookie jar for the provider's own cookies (one origin), as a browser keeps them. */
class Jar {
  readonly cookies = new Map<string, string>()
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
  keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim())
    }
  }
}

/**
 * A browser at the provider: opens the authorization URL, signs in as `login` on the login form, and
 * answers the URL the provider sends the browser back to (Latchkey's callback, with its query).
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<string> {
  const jar = new Jar()
  let url = authorizationUrl
  let body: string | undefined
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(body ? { body } : {}),
    })
    jar.keep(response)
    body = undefined
    const location = response.headers.get('location')
    if (location) {
      const next = new URL(location, url)
      if (!next.href.startsWith(new URL(authorizationUrl).origin)) return next.href
      url = next.href
      continue
    }
    const page = await response.text()
    if (!page.includes('name="login"')) throw new Error(`the provider answered ${response.status}: ${page.slice(0, 300)}`)
    body = new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString()
  }
  throw new Error('the provider never sent the browser back')
}
