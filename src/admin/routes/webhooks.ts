import type { FastifyInstance } from 'fastify'
import { addWebhook, findWebhook, removeWebhook, replayWebhook, verifyWebhook, webhookJson, webhookStatus } from '../../domain/revocations/webhooks.ts'
import { PROBLEM_TYPES, ProblemError } from '../problem.ts'
import { NEW_WEBHOOK, REPLAY, WEBHOOK, WEBHOOK_STATUS, json, noContent, params, responses } from '../schemas.ts'

const TAG = ['webhooks']

/** The revocation push's endpoints (docs/revocation-push.md): register, check with X's CRC challenge, watch, replay, remove. */
export async function webhookRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { url: string; app_id?: string } }>(
    '/admin/v1/webhooks',
    {
      schema: {
        operationId: 'addWebhook',
        tags: TAG,
        summary: 'Register a webhook endpoint for revocation events; its signing secret is in this answer only. Nothing is sent before it passes the CRC challenge (verify).',
        body: NEW_WEBHOOK,
        response: responses({ 201: json('The endpoint, with its secret (shown once).', { ...WEBHOOK, required: [...WEBHOOK.required, 'secret'], properties: { ...WEBHOOK.properties, secret: { type: 'string' } } }) }, 400, 404),
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await addWebhook(request.adminDomain, { url: request.body.url, appId: request.body.app_id })
      return reply.code(201).send({ ...webhookJson(endpoint), secret })
    },
  )

  app.get(
    '/admin/v1/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags: TAG,
        summary: 'Every webhook endpoint with its queue: pending and failed events, last error, last success',
        response: responses({ 200: json('Every endpoint.', { type: 'object', required: ['data'], properties: { data: { type: 'array', items: WEBHOOK_STATUS } }, additionalProperties: false }) }),
      },
    },
    async (request) => ({ data: (await webhookStatus(request.adminDomain)).map(webhookJson) }),
  )

  app.get<{ Params: { webhook_id: string } }>(
    '/admin/v1/webhooks/:webhook_id',
    { schema: { operationId: 'getWebhook', tags: TAG, summary: 'One endpoint and its queue', params: params('webhook_id'), response: responses({ 200: json('The endpoint.', WEBHOOK_STATUS) }, 400, 404) } },
    async (request) => {
      const { id } = await findWebhook(request.adminDomain, request.params.webhook_id)
      const status = (await webhookStatus(request.adminDomain)).find((endpoint) => endpoint.id === id)
      if (!status) throw new ProblemError(404, PROBLEM_TYPES.notFound, `no webhook with id ${id}`)
      return webhookJson(status)
    },
  )

  app.post<{ Params: { webhook_id: string } }>(
    '/admin/v1/webhooks/:webhook_id/verify',
    {
      schema: {
        operationId: 'verifyWebhook',
        tags: TAG,
        summary: "X's CRC challenge: GET the URL with crc_token; the receiver must answer {\"response_token\": \"sha256=<base64 HMAC-SHA256(secret, crc_token)>\"}. Deliveries start once it does.",
        params: params('webhook_id'),
        response: responses({ 200: json('The endpoint, verified.', WEBHOOK) }, 400, 404),
      },
    },
    async (request) => webhookJson(await verifyWebhook(request.adminDomain, request.params.webhook_id)),
  )

  app.post<{ Params: { webhook_id: string }; Body: { failed?: true; since?: string } }>(
    '/admin/v1/webhooks/:webhook_id/replay',
    {
      schema: {
        operationId: 'replayWebhook',
        tags: TAG,
        summary: "Send events again: the endpoint's failed ones, or every event since a time (within the revocation retention)",
        params: params('webhook_id'),
        body: REPLAY,
        response: responses({ 200: json('How many events were queued.', { type: 'object', required: ['queued'], properties: { queued: { type: 'integer' } }, additionalProperties: false }) }, 400, 404),
      },
    },
    async (request) => {
      const { failed, since } = request.body
      const sinceMs = since === undefined ? undefined : Date.parse(since)
      if ((failed === undefined) === (since === undefined) || (sinceMs !== undefined && !Number.isFinite(sinceMs))) {
        throw new ProblemError(400, PROBLEM_TYPES.validation, 'The request has invalid fields.', [{ in: 'body', field: 'since', detail: 'give either failed: true or since: a time' }])
      }
      const queued = await replayWebhook(request.adminDomain, request.params.webhook_id, sinceMs === undefined ? { failed: true } : { sinceMs })
      return { queued }
    },
  )

  app.delete<{ Params: { webhook_id: string } }>(
    '/admin/v1/webhooks/:webhook_id',
    { schema: { operationId: 'removeWebhook', tags: TAG, summary: 'Remove an endpoint and its queue', params: params('webhook_id'), response: responses(noContent, 400, 404) } },
    async (request, reply) => {
      await removeWebhook(request.adminDomain, request.params.webhook_id)
      return reply.code(204).send()
    },
  )
}
