import type { FastifyInstance } from 'fastify'
import { revokeBearerToken } from '../../domain/admin/people.ts'
import { APP_SETTING_FIELDS, createApp, deleteApp, findApp, rotateAppKeys, updateApp, type AppSettings } from '../../domain/registry/apps.ts'
import { issueOwnerToken } from '../../domain/registry/owner-token.ts'
import { applyOAuth2Setting, regenerateClientSecret, type OAuth2Setting } from '../../domain/oauth2-user/clients.ts'
import type { DomainDeps } from '../../domain/deps.ts'
import { findUserByIdOrScreenName } from '../../domain/registry/users.ts'
import type { AppRecord } from '../../storage/records.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { decodeCursor, page, ID_KEY } from '../pagination.ts'
import { APP, APP_PATCH, APP_WITH_SECRET, CLIENT_SECRET_ROTATED, CLIENT_SECRET_ROTATION, NEW_APP, OWNER, OWNER_TOKEN, ROTATED, ROTATION, json, listOf, listQuery, noContent, params, responses } from '../schemas.ts'
import { appJson, fromWire, type OnTheWire } from '../../domain/vocabulary.ts'

/** An app's settings as the admin API's bodies name them (the vocabulary), with its OAuth 2.0 client. */
type AppBody = Partial<OnTheWire<AppSettings>> & {
  oauth2_enabled?: boolean
  client_type?: 'confidential' | 'public'
}

/** `write` is the admin API's short name for the read-write level. */
const accessLevel = (level: string | undefined) => (level === 'write' ? 'read-write' : level)

function settingsOf(body: AppBody): AppSettings {
  return { ...fromWire<AppSettings>(body, APP_SETTING_FIELDS), accessLevel: accessLevel(body.access_level) }
}

/** What oauth2_enabled and client_type ask for, given the client the app has (undefined: leave it). */
function oauth2SettingOf(body: AppBody, current: OAuth2Setting): OAuth2Setting | undefined {
  if (body.oauth2_enabled === false) return 'off'
  if (body.client_type !== undefined) return body.client_type
  if (body.oauth2_enabled === true) return current === 'off' ? 'confidential' : current
  return undefined
}

/** The app as the answers show it, with its client as the body left it. */
async function answerOf(deps: DomainDeps, app: AppRecord, body: AppBody, options: { withSecret: boolean }) {
  return appJson(app, { ...options, ...(await applyOAuth2Setting(deps, app.id, (current) => oauth2SettingOf(body, current))) })
}

const appParams = params('app_id')

export async function appRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: AppBody & { name: string; owner: string; beyond_app_limit?: boolean } }>(
    '/admin/v1/apps',
    {
      schema: {
        operationId: 'createApp',
        tags: ['apps'],
        summary: 'Register an app; the answer holds its consumer secret, shown this once',
        body: NEW_APP,
        response: responses({ 201: json('The new app, with its consumer key and secret.', APP_WITH_SECRET) }, 400, 409),
      },
    },
    async (request, reply) => {
      const { body } = request
      const created = await createApp(request.adminDomain, { ...settingsOf(body), name: body.name, owner: body.owner }, { beyondAppLimit: body.beyond_app_limit === true })
      return reply.code(201).send(await answerOf(request.adminDomain, created, body, { withSecret: true }))
    },
  )

  app.get<{ Querystring: { owner?: string; cursor?: string; limit: number } }>(
    '/admin/v1/apps',
    {
      schema: {
        operationId: 'listApps',
        tags: ['apps'],
        summary: 'List apps in id order (never their secrets)',
        querystring: listQuery({ owner: OWNER }),
        response: responses({ 200: json('A page of apps.', listOf(APP)) }, 400),
      },
    },
    async (request) => {
      const { owner, cursor, limit } = request.query
      const afterId = decodeCursor(cursor, ID_KEY)
      const ownerId = owner === undefined ? undefined : (await findUserByIdOrScreenName(request.adminDomain, owner).catch(() => undefined))?.id
      // An owner no one is: an empty page, as a filter that matches nothing.
      const rows = owner !== undefined && ownerId === undefined ? [] : await request.adminDomain.stores.listings.appsPage({ limit: limit + 1, afterId, ownerId })
      const clients = new Map((await request.adminDomain.stores.oauth2Clients.findByAppIds(rows.map((a) => a.id))).map((c) => [c.appId, c]))
      return page(rows, limit, (a) => a.id, (a) => appJson(a, { withSecret: false, client: clients.get(a.id) }))
    },
  )

  app.get<{ Params: { app_id: string } }>(
    '/admin/v1/apps/:app_id',
    { schema: { operationId: 'getApp', tags: ['apps'], summary: 'One app (never its secret)', params: appParams, response: responses({ 200: json('The app.', APP) }, 400, 404) } },
    async (request) => {
      const found = await findApp(request.adminDomain, request.params.app_id)
      return answerOf(request.adminDomain, found, {}, { withSecret: false })
    },
  )

  app.patch<{ Params: { app_id: string }; Body: AppBody }>(
    '/admin/v1/apps/:app_id',
    {
      schema: {
        operationId: 'updateApp',
        tags: ['apps'],
        summary: "Change an app's settings, or suspend it",
        params: appParams,
        body: APP_PATCH,
        response: responses({ 200: json('The app as changed.', APP) }, 400, 404, 409),
      },
    },
    async (request) => {
      const updated = await updateApp(request.adminDomain, request.params.app_id, settingsOf(request.body))
      return answerOf(request.adminDomain, updated, request.body, { withSecret: false })
    },
  )

  app.delete<{ Params: { app_id: string } }>(
    '/admin/v1/apps/:app_id',
    { schema: { operationId: 'deleteApp', tags: ['apps'], summary: 'Delete an app: every credential of it stops working at once', params: appParams, response: responses(noContent, 400, 404) } },
    async (request, reply) => {
      await deleteApp(request.adminDomain, request.params.app_id)
      return reply.code(204).send()
    },
  )

  app.post<{ Params: { app_id: string }; Body: { grace_seconds?: number; revoke_tokens?: boolean } }>(
    '/admin/v1/apps/:app_id/rotate-keys',
    {
      schema: {
        operationId: 'rotateKeys',
        tags: ['apps'],
        summary: 'New consumer key and secret; the old pair stops at once or after grace_seconds',
        params: appParams,
        body: ROTATION,
        response: responses({ 200: json('The new key pair, shown this once.', ROTATED) }, 400, 404),
      },
      // The body is optional: no body is an empty one (no grace period: every token revoked). Only
      // no body at all: a JSON `null` is a body, and not an object (400), never a rotation.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {}
      },
    },
    async (request) => {
      const { grace_seconds: graceSeconds, revoke_tokens: revokeTokens } = request.body
      const rotated = await rotateAppKeys(request.adminDomain, request.params.app_id, {
        ...(revokeTokens === undefined ? {} : { revokeTokens }),
        ...(graceSeconds === undefined ? {} : { graceSeconds }),
      })
      return {
        consumer_key: rotated.consumerKey,
        consumer_secret: rotated.consumerSecret,
        previous_key_expires_at: graceSeconds === undefined ? null : new Date(rotated.updatedAtMs + graceSeconds * 1000).toISOString(),
      }
    },
  )

  app.post<{ Params: { app_id: string }; Body: { grace_seconds?: number } }>(
    '/admin/v1/apps/:app_id/rotate-client-secret',
    {
      schema: {
        operationId: 'rotateClientSecret',
        tags: ['apps'],
        summary: 'A new OAuth 2.0 client secret (confidential clients); the old one and every grant end at once, or the old one works on for grace_seconds',
        params: appParams,
        body: CLIENT_SECRET_ROTATION,
        response: responses({ 200: json('The new client secret, shown this once.', CLIENT_SECRET_ROTATED) }, 400, 404),
      },
      // As rotate-keys: no body at all is an empty one (no grace period).
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {}
      },
    },
    async (request) => {
      const found = await findApp(request.adminDomain, request.params.app_id)
      const graceSeconds = request.body.grace_seconds
      const change = await regenerateClientSecret(request.adminDomain, { appId: found.id, ...(graceSeconds === undefined ? {} : { graceSeconds }) })
      if (!change?.client || !change.newSecret) {
        throw new ServiceError(E.invalidParameter, { message: `app ${found.id} has no confidential OAuth 2.0 client (PATCH it with "client_type": "confidential")` })
      }
      const expiresAtMs = change.client.previousSecretExpiresAtMs
      return { client_id: change.client.clientId, client_secret: change.newSecret, previous_secret_expires_at: expiresAtMs === null ? null : new Date(expiresAtMs).toISOString() }
    },
  )

  app.post<{ Params: { app_id: string } }>(
    '/admin/v1/apps/:app_id/owner-token',
    {
      schema: {
        operationId: 'issueOwnerToken',
        tags: ['apps'],
        summary: "The owner's own access token for the app (the same one again while it lives)",
        params: appParams,
        response: responses({ 200: json("The owner's access token.", OWNER_TOKEN) }, 400, 404),
      },
    },
    async (request) => {
      const { owner, token } = await issueOwnerToken(request.adminDomain, request.params.app_id)
      return { oauth_token: token.token, oauth_token_secret: token.secret, user_id: owner.id, screen_name: owner.screenName }
    },
  )

  app.delete<{ Params: { app_id: string } }>(
    '/admin/v1/apps/:app_id/bearer-token',
    {
      schema: {
        operationId: 'revokeBearerToken',
        tags: ['apps'],
        summary: "Invalidate the app's outstanding bearer token",
        params: appParams,
        response: responses(noContent, 400, 404),
      },
    },
    async (request, reply) => {
      await revokeBearerToken(request.adminDomain, request.params.app_id)
      return reply.code(204).send()
    },
  )
}
