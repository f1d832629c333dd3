import type { FastifyInstance, FastifyRequest } from 'fastify'
import { answerLoginChallenge } from '../../domain/accounts/answer-login-challenge.ts'
import { describeLoginChallenge } from '../../domain/accounts/describe-login-challenge.ts'
import { json, responses } from '../schemas.ts'

// Login delegation (docs/accounts.md): the platform's login page reads a challenge, then accepts or
// rejects it, and sends the browser to `redirect_to`.

const RETURN_PATH = '/login/delegated/return'

const CHALLENGE_PARAMS = {
  type: 'object',
  required: ['challenge'],
  properties: { challenge: { type: 'string', minLength: 1, maxLength: 200, description: 'The `login_challenge` the login page was opened with.' } },
  additionalProperties: false,
} as const

const CHALLENGE = {
  type: 'object',
  required: ['force_login', 'expires_at', 'answered'],
  properties: {
    app: { type: 'object', required: ['app_id', 'name'], properties: { app_id: { type: 'string' }, name: { type: 'string' } }, additionalProperties: false },
    login_hint: { type: 'string', description: 'The screen name the app suggested (the consent page\'s `screen_name`).' },
    force_login: { type: 'boolean', description: 'The app asked that the person sign in afresh, whatever session the login page holds.' },
    expires_at: { type: 'string', format: 'date-time' },
    answered: { type: 'boolean' },
  },
  additionalProperties: false,
} as const

const ACCEPT = {
  type: 'object',
  required: ['subject', 'screen_name'],
  properties: {
    subject: { type: 'string', minLength: 1, maxLength: 255, description: "The platform's stable id of the person." },
    screen_name: { type: 'string', pattern: '^[A-Za-z0-9_]{1,15}$', description: 'The screen name of a person created for this subject (made unique), or the one matched with --login-link screen_name.' },
    name: { type: 'string', minLength: 1, maxLength: 50 },
    email: { type: 'string', format: 'email', maxLength: 254, description: 'Trusted as checked by the platform (matched with --login-link email).' },
    remember: { type: 'boolean', description: 'Keep the browser session across browser restarts (default false).' },
  },
  additionalProperties: false,
} as const

const REJECT = {
  type: 'object',
  properties: {
    error: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$', description: 'A short code (default access_denied).' },
    error_description: { type: 'string', minLength: 1, maxLength: 300, description: 'Shown to the person on the page they come back to.' },
  },
  additionalProperties: false,
} as const

const REDIRECT = {
  type: 'object',
  required: ['redirect_to'],
  properties: { redirect_to: { type: 'string', description: 'Where the login page sends the browser now.' } },
  additionalProperties: false,
} as const

type ChallengeRequest<Body = unknown> = FastifyRequest<{ Params: { challenge: string }; Body: Body }>

interface AcceptBody {
  subject: string
  screen_name: string
  name?: string
  email?: string
  remember?: boolean
}

/** `publicUrl`: --public-url, the origin the browser comes back to; else the admin request's own. */
export function loginChallengeRoutes(publicUrl: URL | undefined) {
  const redirectTo = (request: ChallengeRequest, verifier: string | undefined) => {
    const origin = publicUrl?.origin ?? `${request.protocol}://${request.host}`
    const query = new URLSearchParams({ login_challenge: request.params.challenge, ...(verifier ? { login_verifier: verifier } : {}) })
    return { redirect_to: `${origin}${RETURN_PATH}?${query}` }
  }

  async function answer(request: ChallengeRequest, outcome: Parameters<typeof answerLoginChallenge>[2]) {
    const { verifier } = await answerLoginChallenge(request.adminDomain, request.params.challenge, outcome)
    return redirectTo(request, verifier)
  }

  return async (app: FastifyInstance): Promise<void> => {
    const tags = ['login-challenges']
    app.get<{ Params: { challenge: string } }>(
      '/admin/v1/login-challenges/:challenge',
      { schema: { operationId: 'getLoginChallenge', tags, summary: 'What a login challenge is for: the app, the login hint, force_login, when it expires', params: CHALLENGE_PARAMS, response: responses({ 200: json('The challenge.', CHALLENGE) }, 400, 404) } },
      async (request) => {
        const view = await describeLoginChallenge(request.adminDomain, request.params.challenge)
        return {
          ...(view.app ? { app: { app_id: view.app.id, name: view.app.name } } : {}),
          ...(view.loginHint ? { login_hint: view.loginHint } : {}),
          force_login: view.forceLogin,
          expires_at: new Date(view.expiresAtMs).toISOString(),
          answered: view.isAnswered,
        }
      },
    )

    app.put<{ Params: { challenge: string }; Body: AcceptBody }>(
      '/admin/v1/login-challenges/:challenge/accept',
      { schema: { operationId: 'acceptLoginChallenge', tags, summary: 'The platform signed the person in: who they are; answered once', params: CHALLENGE_PARAMS, body: ACCEPT, response: responses({ 200: json('Where to send the browser.', REDIRECT) }, 400, 404, 409) } },
      async (request) => {
        const { subject, screen_name, name, email, remember } = request.body
        return answer(request, { accepted: { subject, screenName: screen_name, name, email, remember: remember ?? false } })
      },
    )

    app.put<{ Params: { challenge: string }; Body: { error?: string; error_description?: string } }>(
      '/admin/v1/login-challenges/:challenge/reject',
      {
        schema: { operationId: 'rejectLoginChallenge', tags, summary: 'The platform refused the sign-in; answered once', params: CHALLENGE_PARAMS, body: REJECT, response: responses({ 200: json('Where to send the browser.', REDIRECT) }, 400, 404, 409) },
        // No body at all is an empty one (access_denied, no description); a JSON null is not an object (400).
        preValidation: async (request) => {
          if (request.body === undefined) request.body = {}
        },
      },
      async (request) => {
        const body = request.body
        return answer(request, { rejected: { error: body.error ?? 'access_denied', description: body.error_description } })
      },
    )
  }
}
