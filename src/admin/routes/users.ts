import type { FastifyInstance } from 'fastify'
import { findUser, revokeAuthorization, updateUser } from '../../domain/admin/people.ts'
import { connectedApps } from '../../domain/console/connected-apps.ts'
import { createUser } from '../../domain/registry/users.ts'
import { decodeCursor, page, ID_KEY } from '../pagination.ts'
import { AUTHORIZATION, NEW_USER, USER, USER_PATCH, json, listOf, listQuery, noContent, params, responses } from '../schemas.ts'
import { userJson } from '../../domain/vocabulary.ts'
import { identitiesJson, USER_WITH_IDENTITIES } from './identities.ts'

export async function userRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { screen_name: string; password: string; name?: string; email?: string } }>(
    '/admin/v1/users',
    { schema: { operationId: 'createUser', tags: ['users'], summary: 'Register a person', body: NEW_USER, response: responses({ 201: json('The new user.', USER) }, 400, 409) } },
    async (request, reply) => {
      const { screen_name, password, name, email } = request.body
      const user = await createUser(request.adminDomain, { screenName: screen_name, password, ...(name === undefined ? {} : { name }), ...(email === undefined ? {} : { email }) })
      return reply.code(201).send(userJson(user))
    },
  )

  app.get<{ Querystring: { screen_name?: string; cursor?: string; limit: number } }>(
    '/admin/v1/users',
    {
      schema: {
        operationId: 'listUsers',
        tags: ['users'],
        summary: 'List people, in id order',
        querystring: listQuery({ screen_name: { type: 'string', pattern: '^[A-Za-z0-9_]{1,15}$', description: 'Only the person of this screen name (any case).' } }),
        response: responses({ 200: json('A page of users.', listOf(USER)) }, 400),
      },
    },
    async (request) => {
      const { screen_name, cursor, limit } = request.query
      const afterId = decodeCursor(cursor, ID_KEY)
      const rows = await request.adminDomain.stores.listings.usersPage({ limit: limit + 1, afterId, screenName: screen_name })
      return page(rows, limit, (u) => u.id, userJson)
    },
  )

  app.get<{ Params: { user_id: string } }>(
    '/admin/v1/users/:user_id',
    { schema: { operationId: 'getUser', tags: ['users'], summary: 'One person, with their upstream identities', params: params('user_id'), response: responses({ 200: json('The user.', USER_WITH_IDENTITIES) }, 400, 404) } },
    async (request) => {
      const user = await findUser(request.adminDomain, request.params.user_id)
      return { ...userJson(user), identities: await identitiesJson(request.adminDomain, user.id) }
    },
  )

  app.patch<{ Params: { user_id: string }; Body: { name?: string; password?: string; disabled?: boolean; email?: string | null } }>(
    '/admin/v1/users/:user_id',
    {
      schema: {
        operationId: 'updateUser',
        tags: ['users'],
        summary: "Change a person's display name or password, or disable them (or enable them again); a new password or disabling ends every browser session of theirs",
        params: params('user_id'),
        body: USER_PATCH,
        response: responses({ 200: json('The user as changed.', USER) }, 400, 404, 409),
      },
    },
    async (request) => userJson(await updateUser(request.adminDomain, request.params.user_id, request.body)),
  )

  app.get<{ Params: { user_id: string } }>(
    '/admin/v1/users/:user_id/authorizations',
    {
      schema: {
        operationId: 'listAuthorizations',
        tags: ['authorizations'],
        summary: 'The apps this person has authorized (holds a live OAuth 1.0a access token or OAuth 2.0 grant of)',
        params: params('user_id'),
        response: responses({ 200: json('Every authorization of the user.', { type: 'object', required: ['data'], properties: { data: { type: 'array', items: AUTHORIZATION } }, additionalProperties: false }) }, 400, 404),
      },
    },
    async (request) => {
      const user = await findUser(request.adminDomain, request.params.user_id)
      const apps = await connectedApps(request.adminDomain, user.id)
      return {
        data: apps
          // By id as a number: ids of different lengths would sort wrongly as text.
          .sort((a, b) => (BigInt(a.appId) < BigInt(b.appId) ? -1 : 1))
          .map((a) => ({ app_id: a.appId, app_name: a.appName, access_level: a.accessLevel, authorized_at: new Date(a.authorizedAtMs).toISOString(), ...(a.scopes ? { scopes: a.scopes } : {}) })),
      }
    },
  )

  app.delete<{ Params: { user_id: string; app_id: string } }>(
    '/admin/v1/users/:user_id/authorizations/:app_id',
    {
      schema: {
        operationId: 'revokeAuthorization',
        tags: ['authorizations'],
        summary: "Withdraw a person's authorization of an app: its access tokens answer 401 code 89 from now on",
        params: params('user_id', 'app_id'),
        response: responses(noContent, 400, 404),
      },
    },
    async (request, reply) => {
      await revokeAuthorization(request.adminDomain, request.params.user_id, request.params.app_id)
      return reply.code(204).send()
    },
  )
}
