import type { FastifyInstance } from 'fastify'
import { importPeople, importResultJson } from '../../domain/accounts/import-people.ts'
import { json, responses } from '../schemas.ts'

/** At most this many people per call: one unit of work each, so a call stays within seconds. */
export const IMPORT_MAX_USERS = 500
/** Room for IMPORT_MAX_USERS entries with long hashes, names and addresses (the admin API's usual bound is 64 KiB). */
const IMPORT_BODY_BYTES = 1024 * 1024

/** An entry is checked by the import itself, so that a bad one is reported at its index and the rest go on. */
const IMPORT_BODY = {
  type: 'object',
  required: ['users'],
  properties: {
    users: {
      type: 'array',
      minItems: 1,
      maxItems: IMPORT_MAX_USERS,
      description: 'Each `{"screen_name", "password_hash", "name"?, "email"?, "id"?}` (docs/accounts.md); a bad entry is refused in the answer, not here.',
      items: {},
    },
  },
  additionalProperties: false,
} as const

const IMPORT_ANSWER = {
  type: 'object',
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'status'],
        properties: {
          index: { type: 'integer', description: 'The entry\'s position in `users`, from 0.' },
          status: { type: 'string', enum: ['created', 'unchanged', 'refused'] },
          id: { type: 'string', description: 'The person\'s id (created or unchanged).' },
          screen_name: { type: 'string' },
          reason: { type: 'string', description: 'Why the entry was refused (never the hash).' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const

export async function userImportRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { users: unknown[] } }>(
    '/admin/v1/users/import',
    {
      bodyLimit: IMPORT_BODY_BYTES,
      schema: {
        operationId: 'importUsers',
        tags: ['users'],
        summary: `Import people with the password hashes of the system they come from (bcrypt, argon2id, Django's pbkdf2_sha256, Latchkey's scrypt), at most ${IMPORT_MAX_USERS} per call; each entry is created, unchanged (already imported) or refused with the reason`,
        body: IMPORT_BODY,
        response: responses({ 200: json('One answer per entry, in order.', IMPORT_ANSWER) }, 400),
      },
    },
    async (request) => {
      const results = await importPeople(request.adminDomain, request.body.users, { firstIndex: 0 })
      return { results: results.map(importResultJson) }
    },
  )
}
