import { E, type ErrorDef } from '../errors/catalogue.ts'
import { consolePaths } from './openapi-console.ts'

/**
 * The OpenAPI 3.1 document of the public endpoints (GET /openapi.json; docs/openapi-public.json).
 * The public routes read their raw bodies (an OAuth signature covers the exact encoding), so they
 * have no JSON schemas to build it from: it is written here, from the error catalogue, and a test
 * checks that it names every route the public service has.
 */

const TWITTER_ERRORS = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'integer' }, message: { type: 'string' }, label: { type: 'string' } },
      },
    },
  },
} as const

/** Answers with the Twitter-shaped error body, one per status, listing the codes it may hold. */
function errors(...defs: ErrorDef[]): Record<string, object> {
  const byStatus = new Map<number, ErrorDef[]>()
  for (const def of [...defs, E.rateLimitExceeded, E.overCapacity]) byStatus.set(def.status, [...(byStatus.get(def.status) ?? []), def])
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      {
        description: list.map((d) => `code ${d.code}: ${d.message}`).join('; '),
        content: { 'application/json': { schema: TWITTER_ERRORS } },
      },
    ]),
  )
}

const form = (properties: Record<string, object>, required: string[]) => ({
  'application/x-www-form-urlencoded': { schema: { type: 'object', required, properties } },
})
const text = { type: 'string' } as const
const oauth1 = [{ oauth1: [] }]
const SIGNED_ERRORS = [E.badAuthenticationData, E.couldNotAuthenticate, E.timestampOutOfBounds, E.invalidOrExpiredToken, E.suspendedApplication, E.sslRequired]

const healthAnswer = (status: string) => ({
  description: `The service ${status === 'ok' ? 'runs' : 'and its database answer'}.`,
  content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { const: status } } } } },
})

const consentPage = (flow: string) => ({
  get: {
    operationId: `${flow}Page`,
    tags: ['consent'],
    summary: `The consent page (${flow}): a person signs in and allows or denies the app`,
    parameters: [
      { name: 'oauth_token', in: 'query', required: true, schema: text },
      { name: 'force_login', in: 'query', schema: { type: 'string', enum: ['true', 'false', '1', '0'] } },
      { name: 'screen_name', in: 'query', schema: text },
    ],
    responses: {
      '200': { description: 'The page.', content: { 'text/html': { schema: text } } },
      '302': { description: 'authenticate only: the person already allowed the app; back to its callback.' },
      '400': { description: 'A page that explains what is wrong with the link.', content: { 'text/html': { schema: text } } },
    },
  },
  post: {
    operationId: `${flow}Decision`,
    tags: ['consent'],
    summary: 'The consent form: sign in, allow or deny',
    requestBody: { required: true, content: form({ oauth_token: text, session_username_or_email: text, session_password: text, decision: text }, ['oauth_token']) },
    responses: {
      '200': { description: 'The PIN page (oob) or the page again.', content: { 'text/html': { schema: text } } },
      '302': { description: "To the app's callback with oauth_token and oauth_verifier (or denied)." },
      '4XX': { description: 'A page that says what went wrong.', content: { 'text/html': { schema: text } } },
    },
  },
})

/** The four paths Twitter documents for it; each needs an operationId of its own. */
const invalidateAccessToken = (operationId: string) => ({
  post: {
    operationId,
    tags: ['oauth1'],
    summary: 'Invalidate the access token the request is signed with',
    security: oauth1,
    responses: {
      '200': { description: 'Invalidated.', content: { 'application/json': { schema: { type: 'object', required: ['access_token'], properties: { access_token: text } } } } },
      ...errors(...SIGNED_ERRORS),
    },
  },
})

const OAUTH2_ERROR = { type: 'object', required: ['error', 'error_description'], properties: { error: text, error_description: text } } as const
const PROBLEM = { type: 'object', required: ['title', 'type', 'status', 'detail'], properties: { title: text, type: text, status: { type: 'integer' }, detail: text } } as const

/** OAuth 2.0 user context's errors: RFC 6749 §5.2 bodies (`error`) or API v2 problems (`title`), by status. */
function userContextErrors(schema: object, ...defs: ErrorDef[]): Record<string, object> {
  const byStatus = new Map<number, ErrorDef[]>()
  for (const def of [...defs, E.rateLimitExceeded, E.overCapacity]) byStatus.set(def.status, [...(byStatus.get(def.status) ?? []), def])
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      { description: list.map((d) => `${d.oauth2 ?? d.problem?.title ?? `code ${d.code}`}: ${d.message}`).join('; '), content: { 'application/json': { schema } } },
    ]),
  )
}

const CLIENT_ERRORS = [E.oauth2MissingClientAuthentication, E.oauth2InvalidClient, E.oauth2InvalidRequest]
const bodyOf = (properties: Record<string, object>, required: string[]) => ({
  ...form(properties, required),
  'application/json': { schema: { type: 'object', required, properties } },
})

function userContextPaths(): Record<string, object> {
  const tokenAnswer = {
    type: 'object',
    required: ['token_type', 'expires_in', 'access_token', 'scope'],
    properties: { token_type: { const: 'bearer' }, expires_in: { const: 7200 }, access_token: text, scope: text, refresh_token: text },
  }
  return {
    '/i/oauth2/authorize': {
      get: {
        operationId: 'oauth2AuthorizePage',
        tags: ['oauth2-user'],
        summary: 'OAuth 2.0 user context: the consent page (authorization code with PKCE)',
        parameters: ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'].map((name) => ({
          name,
          in: 'query',
          required: name !== 'code_challenge_method',
          schema: text,
        })),
        responses: {
          '200': { description: 'The page.', content: { 'text/html': { schema: text } } },
          '302': { description: 'Back to the redirect URI with an error and the state (a bad parameter, a scope beyond the access level).' },
          '400': { description: 'An unknown client or an unregistered redirect URI: a page, never a redirect.', content: { 'text/html': { schema: text } } },
        },
      },
      post: {
        operationId: 'oauth2AuthorizeDecision',
        tags: ['oauth2-user'],
        summary: 'The consent form: sign in, allow or deny',
        requestBody: { required: true, content: form({ csrf_token: text, action: { type: 'string', enum: ['allow', 'cancel', 'switch'] }, username: text, password: text }, ['csrf_token', 'action']) },
        responses: {
          '200': { description: 'The page again.', content: { 'text/html': { schema: text } } },
          '302': { description: 'To the redirect URI with `code` and `state` (Allow) or `error=access_denied` (Cancel).' },
          '4XX': { description: 'A page that says what went wrong.', content: { 'text/html': { schema: text } } },
        },
      },
    },
    '/2/oauth2/token': {
      post: {
        operationId: 'userToken',
        tags: ['oauth2-user'],
        summary: 'OAuth 2.0 user context: a code (with its PKCE verifier) or a refresh token for an access token',
        security: [{ basic: [] }, {}],
        requestBody: {
          required: true,
          content: bodyOf({ grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] }, code: text, redirect_uri: text, code_verifier: text, refresh_token: text, scope: text, client_id: text, client_secret: text }, ['grant_type']),
        },
        responses: {
          '200': { description: 'The tokens; `refresh_token` only with `offline.access`.', content: { 'application/json': { schema: tokenAnswer } } },
          ...userContextErrors(OAUTH2_ERROR, ...CLIENT_ERRORS, E.oauth2UnsupportedGrantType, E.oauth2InvalidScope, E.oauth2InvalidToken),
        },
      },
    },
    '/2/oauth2/revoke': {
      post: {
        operationId: 'revokeUserToken',
        tags: ['oauth2-user'],
        summary: 'RFC 7009: end an access or refresh token, and with it its grant',
        security: [{ basic: [] }, {}],
        requestBody: { required: true, content: bodyOf({ token: text, token_type_hint: text, client_id: text, client_secret: text }, ['token']) },
        responses: {
          '200': { description: 'Revoked (also for an unknown token).', content: { 'application/json': { schema: { type: 'object', required: ['revoked'], properties: { revoked: { const: true } } } } } },
          ...userContextErrors(OAUTH2_ERROR, ...CLIENT_ERRORS),
        },
      },
    },
    '/2/users/me': {
      get: {
        operationId: 'usersMe',
        tags: ['oauth2-user'],
        summary: 'Who a user access token (or an OAuth 1.0a access token) acts for',
        security: [{ bearer: [] }, ...oauth1],
        responses: {
          '200': {
            description: 'The person, API v2-shaped.',
            content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: { type: 'object', required: ['id', 'name', 'username'], properties: { id: text, name: text, username: text } } } } } },
          },
          ...userContextErrors(PROBLEM, E.v2Unauthorized, E.v2UnsupportedAuthentication),
        },
      },
    },
  }
}

const IDENTITY_HEADERS = {
  'X-Latchkey-User-Id': 'The person, for user context (OAuth 1.0a access token, OAuth 2.0 user token); empty otherwise.',
  'X-Latchkey-Screen-Name': "The person's screen name; empty for an app-only credential.",
  'X-Latchkey-App-Id': 'The app whose credential it is.',
  'X-Latchkey-Scopes': "An OAuth 2.0 user token's scopes within the app's level, space-separated; empty otherwise.",
  'X-Latchkey-Token-Kind': '`oauth1_user`, `oauth1_app`, `bearer` (app-only OAuth 2.0) or `oauth2_user`.',
  'X-Latchkey-Access-Level': '`read`, `read-write` or `read-write-directmessages`.',
}

/** Written once, as GET (Caddy's call); the route answers every method the same (nginx calls with the client's). */
function forwardAuthPath(): Record<string, object> {
  const headers = (names: string[]) => names.map((name) => ({ name, in: 'header', schema: text }))
  const operation = {
    operationId: 'forwardAuth',
    tags: ['resource-servers'],
    summary: 'Forward auth: is the request a trusted reverse proxy describes allowed?',
    description:
      'Any method answers the same: a proxy may call with the client\'s own method. Only a proxy named in `--trust-proxy` may call it (else 403 code 1010). The body never travels: an OAuth 1.0a request with a form body is refused (401 code 32, reason in `X-Latchkey-Reason`). Every refusal also carries its JSON body in `X-Latchkey-Error`, for nginx. docs/forward-auth.md.',
    security: [...oauth1, { bearer: [] }],
    parameters: headers(['X-Original-URI', 'X-Forwarded-Uri', 'X-Original-Method', 'X-Forwarded-Method', 'X-Forwarded-Host', 'X-Original-Host', 'X-Forwarded-Proto']),
    responses: {
      '204': { description: 'Allowed: who is calling, in headers.', headers: Object.fromEntries(Object.entries(IDENTITY_HEADERS).map(([name, description]) => [name, { description, schema: text }])) },
      ...errors(...SIGNED_ERRORS, E.badRequest, E.forwardAuthUntrusted),
    },
  }
  return { '/latchkey/forward-auth': { get: operation } }
}

/**
 * The public endpoints' document. `serverUrl`: where this service answers as the reader reaches it
 * (GET /openapi.json names its own public origin); without it (docs/openapi-public.json) there is no
 * `servers`, which OpenAPI reads as the document's own origin.
 */
export function publicOpenApi(serverUrl?: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Latchkey public API',
      version: '1',
      description:
        "Twitter-compatible OAuth 1.0a (three-legged and PIN), app-only OAuth 2.0 bearer tokens and OAuth 2.0 user context (authorization code with PKCE). Errors are Twitter's: `{\"errors\":[{\"code\":N,\"message\":\"…\"}]}` (docs/errors.md lists every code).",
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      securitySchemes: {
        oauth1: { type: 'http', scheme: 'OAuth', description: 'An OAuth 1.0a signed Authorization header (RFC 5849).' },
        basic: { type: 'http', scheme: 'basic', description: 'The consumer key and secret, percent-encoded, as Basic credentials.' },
        bearer: { type: 'http', scheme: 'bearer', description: 'An app-only bearer token from POST /oauth2/token, or a user access token from POST /2/oauth2/token.' },
      },
    },
    tags: [
      { name: 'oauth1', description: 'OAuth 1.0a tokens' },
      { name: 'consent', description: 'The pages a person sees' },
      { name: 'oauth2', description: 'App-only bearer tokens' },
      { name: 'oauth2-user', description: 'OAuth 2.0 user context: authorization code with PKCE, refresh, revoke' },
      { name: 'account', description: 'Signed calls an app makes' },
      { name: 'resource-servers', description: 'For the APIs that accept what Latchkey issues' },
      { name: 'health', description: 'For load balancers' },
      { name: 'console', description: 'The developer console and Connected apps: pages a person sees' },
    ],
    paths: {
      '/oauth/request_token': {
        post: {
          operationId: 'requestToken',
          tags: ['oauth1'],
          summary: 'A request token, signed with the consumer key (oauth_callback in the signed parameters)',
          security: oauth1,
          parameters: [{ name: 'x_auth_access_type', in: 'query', schema: { type: 'string', enum: ['read', 'write'] } }],
          responses: {
            '200': { description: 'The request token.', content: form({ oauth_token: text, oauth_token_secret: text, oauth_callback_confirmed: { const: 'true' } }, ['oauth_token', 'oauth_token_secret', 'oauth_callback_confirmed']) },
            ...errors(...SIGNED_ERRORS, E.callbackNotApproved, E.desktopOnlyOob),
          },
        },
      },
      '/oauth/authorize': consentPage('authorize'),
      '/oauth/authenticate': consentPage('authenticate'),
      '/oauth/access_token': {
        post: {
          operationId: 'accessToken',
          tags: ['oauth1'],
          summary: 'Exchange an authorized request token and its verifier for an access token',
          security: oauth1,
          responses: {
            '200': { description: 'The access token.', content: form({ oauth_token: text, oauth_token_secret: text, user_id: text, screen_name: text }, ['oauth_token', 'oauth_token_secret', 'user_id', 'screen_name']) },
            ...errors(...SIGNED_ERRORS),
          },
        },
      },
      '/1.1/oauth/invalidate_token': invalidateAccessToken('invalidateAccessToken'),
      '/1.1/oauth/invalidate_token.json': invalidateAccessToken('invalidateAccessTokenJson'),
      '/oauth/invalidate_token': invalidateAccessToken('invalidateAccessTokenShort'),
      '/oauth/invalidate_token.json': invalidateAccessToken('invalidateAccessTokenShortJson'),
      '/oauth2/token': {
        post: {
          operationId: 'bearerToken',
          tags: ['oauth2'],
          summary: "An app-only bearer token for the app's Basic credentials (the same one while it lives)",
          security: [{ basic: [] }],
          requestBody: { required: true, content: form({ grant_type: { const: 'client_credentials' } }, ['grant_type']) },
          responses: {
            '200': { description: 'The bearer token.', content: { 'application/json': { schema: { type: 'object', required: ['token_type', 'access_token'], properties: { token_type: { const: 'bearer' }, access_token: text } } } } },
            ...errors(E.unableToVerifyCredentials, E.missingGrantType, E.suspendedApplication, E.sslRequired),
          },
        },
      },
      '/oauth2/invalidate_token': {
        post: {
          operationId: 'invalidateBearerToken',
          tags: ['oauth2'],
          summary: "Invalidate the app's bearer token (signed by the owner, or with Basic or Bearer)",
          security: [...oauth1, { basic: [] }, { bearer: [] }],
          requestBody: { content: form({ access_token: text }, ['access_token']) },
          responses: {
            '200': { description: 'Invalidated.', content: { 'application/json': { schema: { type: 'object', required: ['access_token'], properties: { access_token: text } } } } },
            ...errors(E.unableToVerifyCredentials, E.credentialsDoNotAllowResource, ...SIGNED_ERRORS),
          },
        },
      },
      '/oauth2/introspect': {
        post: {
          operationId: 'introspect',
          tags: ['oauth2'],
          summary: 'RFC 7662 introspection, for apps registered as resource servers',
          security: [{ basic: [] }],
          description:
            'A token is `active` only when it is itself a bearer credential. An OAuth 1.0a access token is described only with `token_type_hint=oauth1_access_token`, as `token_type` `urn:latchkey:token-type:oauth1-access-token`.',
          requestBody: { required: true, content: form({ token: text, token_type_hint: text }, ['token']) },
          responses: {
            '200': { description: '`active` and, when active, what the token is.', content: { 'application/json': { schema: { type: 'object', required: ['active'], properties: { active: { type: 'boolean' } } } } } },
            ...errors(E.unableToVerifyCredentials, E.credentialsDoNotAllowResource, E.sslRequired),
          },
        },
      },
      '/latchkey/check-request': {
        post: {
          operationId: 'checkRequest',
          tags: ['oauth2'],
          summary: 'A resource server asks who sent a request it received (docs/check-request.md)',
          security: [{ basic: [] }],
          description:
            'The body is the request as received: `method`, the full `url` as the client addressed it, `authorization`, a form `body` (and its `content_type`), `charge: true` to count the caller against `/latchkey/resource-api`. A refused caller is still a 200: `valid: false` and `refusal` (status, headers, body) as X would answer it.',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['method', 'url'],
                  additionalProperties: false,
                  properties: { method: text, url: text, authorization: text, body: text, content_type: text, charge: { type: 'boolean' } },
                },
              },
            },
          },
          responses: {
            '200': {
              description: '`valid` and the caller (`token_kind`, `app_id`, `consumer_key`, `app_name`, `access_level`, `user_id`, `screen_name`, `scopes`), or the `refusal`.',
              content: { 'application/json': { schema: { type: 'object', required: ['valid'], properties: { valid: { type: 'boolean' }, caller: { type: 'object' }, refusal: { type: 'object' }, rate_limit_headers: { type: 'object' } } } } },
            },
            ...errors(E.invalidParameter, E.unableToVerifyCredentials, E.sslRequired),
          },
        },
      },
      '/1.1/account/verify_credentials.json': {
        get: {
          operationId: 'verifyCredentials',
          tags: ['account'],
          summary: 'Who the access token acts for',
          security: oauth1,
          responses: {
            '200': { description: 'The user, Twitter-shaped.', content: { 'application/json': { schema: { type: 'object', required: ['id', 'id_str', 'screen_name', 'name'], properties: { id: { type: 'integer' }, id_str: text, screen_name: text, name: text } } } } },
            ...errors(...SIGNED_ERRORS),
          },
        },
      },
      '/1.1/application/rate_limit_status.json': {
        get: {
          operationId: 'rateLimitStatus',
          tags: ['account'],
          summary: "The caller's limits and what is left of them",
          security: [...oauth1, { bearer: [] }],
          parameters: [{ name: 'resources', in: 'query', schema: text }],
          responses: {
            '200': { description: 'Limits by family and resource.', content: { 'application/json': { schema: { type: 'object', required: ['resources'], properties: { resources: { type: 'object' } } } } } },
            ...errors(...SIGNED_ERRORS, E.unableToVerifyCredentials),
          },
        },
      },
      '/healthz': { get: { operationId: 'liveness', tags: ['health'], summary: 'The process answers', responses: { '200': healthAnswer('ok') } } },
      '/readyz': { get: { operationId: 'readiness', tags: ['health'], summary: 'The database answers', responses: { '200': healthAnswer('ready'), ...errors() } } },
      '/openapi.json': { get: { operationId: 'openapi', tags: ['health'], summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } } } } },
      ...userContextPaths(),
      ...forwardAuthPath(),
      ...consolePaths(),
    },
  }
}
