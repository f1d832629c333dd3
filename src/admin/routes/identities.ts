import type { FastifyInstance } from 'fastify'
import { unlinkIdentity } from '../../domain/accounts/unlink-identity.ts'
import type { DomainDeps } from '../../domain/deps.ts'
import { ID, noContent, responses, USER } from '../schemas.ts'

/** A person's upstream identity (docs/accounts.md), as the admin API's user shows it. */
export const IDENTITY = {
  type: 'object',
  required: ['provider', 'subject', 'linked_at'],
  properties: {
    provider: { type: 'string', description: "An OpenID Connect provider's id, or `login` (login delegation)." },
    subject: { type: 'string' },
    linked_at: { type: 'string', format: 'date-time' },
    last_sign_in_at: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
} as const

const IDENTITY_PARAMS = {
  type: 'object',
  required: ['user_id', 'provider', 'subject'],
  properties: { user_id: ID, provider: { type: 'string', minLength: 1, maxLength: 64 }, subject: { type: 'string', minLength: 1, maxLength: 255 } },
  additionalProperties: false,
} as const

export async function identityRoutes(app: FastifyInstance): Promise<void> {
  app.delete<{ Params: { user_id: string; provider: string; subject: string } }>(
    '/admin/v1/users/:user_id/identities/:provider/:subject',
    {
      schema: {
        operationId: 'unlinkIdentity',
        tags: ['users'],
        summary: "Remove a person's upstream identity: its next sign-in is a first one again (created or matched by the link policy)",
        params: IDENTITY_PARAMS,
        response: responses(noContent, 400, 404),
      },
    },
    async (request, reply) => {
      const { user_id, provider, subject } = request.params
      await unlinkIdentity(request.adminDomain, { userId: user_id, provider, subject })
      return reply.code(204).send()
    },
  )
}

/** The admin API's one user, with their identities. */
export const USER_WITH_IDENTITIES = {
  ...USER,
  required: [...USER.required, 'identities'],
  properties: { ...USER.properties, identities: { type: 'array', items: IDENTITY } },
} as const

/** A person's identities as the admin API shows them, oldest first. */
export async function identitiesJson(domain: Pick<DomainDeps, 'stores'>, userId: string) {
  const links = await domain.stores.identityLinks.listForUser(userId)
  return links.map((link) => ({
    provider: link.provider,
    subject: link.subject,
    linked_at: new Date(link.createdAtMs).toISOString(),
    ...(link.lastSignInAtMs === undefined ? {} : { last_sign_in_at: new Date(link.lastSignInAtMs).toISOString() }),
  }))
}
