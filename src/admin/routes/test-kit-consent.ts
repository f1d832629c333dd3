import type { FastifyInstance } from 'fastify'
import { parametersOfQuery } from '../../domain/oauth2-user/authorization-request.ts'
import { consentToAuthorizationRequest, consentToRequestToken, type Decision } from '../../domain/test-kit/consent.ts'
import { PROBLEM_SCHEMA, PROBLEM_TYPES, ProblemError } from '../problem.ts'
import { json, responses } from '../schemas.ts'

/**
 * Consent without a browser (issue 47, the test kit): a test answers a consent page for a person,
 * and gets what the page would have done. Registered only in test mode (`serve --test`), never by
 * buildAdminApp: the rules are the pages' own (src/domain/test-kit/consent.ts).
 */

const SCREEN_NAME = { type: 'string', pattern: '^@?[A-Za-z0-9_]{1,15}$', description: 'The person who answers (any case, a leading @ allowed).' } as const
const DECISION = { type: 'string', enum: ['allow', 'deny'], description: '`allow` is "Authorize app", `deny` is "Cancel".' } as const
const TEXT = { type: 'string', maxLength: 1024 } as const

const OAUTH1_CONSENT = {
  type: 'object',
  required: ['oauth_token', 'screen_name', 'decision'],
  properties: { oauth_token: { type: 'string', minLength: 1, maxLength: 200, description: 'The request token from POST /oauth/request_token.' }, screen_name: SCREEN_NAME, decision: DECISION },
  additionalProperties: false,
} as const

/** The /i/oauth2/authorize parameters, each as the client sends it, or the whole authorize URL instead. */
const AUTHORIZE_PARAMETERS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const

const OAUTH2_CONSENT = {
  type: 'object',
  required: ['screen_name', 'decision'],
  properties: {
    screen_name: SCREEN_NAME,
    decision: DECISION,
    authorize_url: { type: 'string', minLength: 1, maxLength: 4096, description: 'The /i/oauth2/authorize URL the client made, instead of its parameters one by one.' },
    ...Object.fromEntries(AUTHORIZE_PARAMETERS.map((name) => [name, TEXT])),
  },
  additionalProperties: false,
} as const

const OUTCOME = {
  anyOf: [
    { type: 'object', required: ['location'], properties: { location: { type: 'string', description: 'Where the page would have redirected the browser.' } }, additionalProperties: false },
    { type: 'object', required: ['pin'], properties: { pin: { type: 'string', description: 'The PIN the page would have shown (oob, allowed).' } }, additionalProperties: false },
    { type: 'object', required: ['denied'], properties: { denied: { type: 'boolean', const: true, description: 'The page would have said the app was not authorized (oob, denied).' } }, additionalProperties: false },
  ],
} as const

const refused = (description: string) => ({ description, content: { 'application/problem+json': { schema: PROBLEM_SCHEMA } } })
const REFUSALS = {
  403: refused('The app is suspended, or a desktop app asked for this flow.'),
  410: refused('The request token has expired, or was already used or cancelled.'),
}

type Oauth2Body = { screen_name: string; decision: Decision; authorize_url?: string } & Partial<Record<(typeof AUTHORIZE_PARAMETERS)[number], string>>

/** The authorization request's parameters: the authorize URL's query, or the fields given (never both). */
function authorizeQuery(body: Oauth2Body): Record<string, string> {
  const { screen_name: _screenName, decision: _decision, authorize_url: authorizeUrl, ...fields } = body
  if (authorizeUrl === undefined) return fields as Record<string, string>
  if (Object.keys(fields).length > 0) {
    throw new ProblemError(400, PROBLEM_TYPES.validation, 'Give authorize_url or the authorization parameters, not both.', [{ in: 'body', field: 'authorize_url', detail: 'is given with other parameters' }])
  }
  const url = URL.canParse(authorizeUrl) ? new URL(authorizeUrl) : undefined
  if (!url) throw new ProblemError(400, PROBLEM_TYPES.validation, 'The request has invalid fields.', [{ in: 'body', field: 'authorize_url', detail: 'is not a URL' }])
  return parametersOfQuery(url.search.slice(1)) as Record<string, string>
}

export async function testConsentRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { oauth_token: string; screen_name: string; decision: Decision } }>(
    '/admin/v1/test/consent/oauth1',
    {
      schema: {
        operationId: 'testConsentOAuth1',
        tags: ['test'],
        summary: "Test mode: a person's answer on the OAuth 1.0a authorize page, without a browser",
        body: OAUTH1_CONSENT,
        response: { ...responses({ 200: json('What the page would have done.', OUTCOME) }, 400, 404), ...REFUSALS },
      },
    },
    async (request) => {
      const { oauth_token: oauthToken, screen_name: screenName, decision } = request.body
      return consentToRequestToken(request.adminDomain, { oauthToken, screenName, decision, address: request.ip })
    },
  )

  app.post<{ Body: Oauth2Body }>(
    '/admin/v1/test/consent/oauth2',
    {
      schema: {
        operationId: 'testConsentOAuth2',
        tags: ['test'],
        summary: "Test mode: a person's answer on the OAuth 2.0 authorize page, without a browser",
        body: OAUTH2_CONSENT,
        response: { ...responses({ 200: json('Where the page would have redirected the browser.', OUTCOME) }, 400, 404), 403: REFUSALS[403] },
      },
    },
    async (request) => {
      const { screen_name: screenName, decision } = request.body
      return consentToAuthorizationRequest(request.adminDomain, { query: authorizeQuery(request.body), screenName, decision, address: request.ip })
    },
  )
}
