import type { FastifyInstance } from 'fastify'
import type { TestClock } from '../../domain/clock.ts'
import { PROBLEM_TYPES, ProblemError } from '../problem.ts'
import { json, noContent, responses } from '../schemas.ts'
import type { FaultQueue } from '../../web/test-kit/faults.ts'
import type { RequestJournal } from '../../web/test-kit/journal.ts'
import { testConsentRoutes } from './test-kit-consent.ts'
import { testFaultRoutes, testJournalRoutes } from './test-kit-faults.ts'
import { testSeedRoutes } from './test-kit-seed.ts'

/** What the test mode's control calls act on (`serve --test`, src/server.ts). */
export interface TestKitControls {
  clock: TestClock
  /** X's failures on demand, and the journal of requests, installed on the public app (AppDeps.testKit). */
  faults: FaultQueue
  journal: RequestJournal
  /** Keeps the state as it is now (after seeding) as the one a reset goes back to. */
  keep(): Promise<void>
  /** Back to the state kept: every token, grant, session, nonce, limit count, fault and journal entry made since is gone. */
  reset(): Promise<void>
}

const CLOCK = {
  type: 'object',
  required: ['now', 'now_ms', 'offset_seconds'],
  properties: {
    now: { type: 'string', format: 'date-time', description: 'What every rule of the service takes for now.' },
    now_ms: { type: 'integer' },
    offset_seconds: { type: 'number', description: "How far it is ahead of this machine's clock." },
  },
  additionalProperties: false,
} as const

const CLOCK_MOVE = {
  type: 'object',
  properties: {
    advance_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 10 * 365 * 24 * 3600, description: 'Moves the clock forward by this many seconds.' },
    set: { type: 'string', format: 'date-time', description: 'Puts the clock at this moment (not before the server started).' },
  },
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
} as const

/**
 * The test mode's control calls, under /admin/v1/test/ on the admin listener (an admin token, like
 * every admin route); registered in test mode only, so they answer 404 anywhere else.
 */
export function testKitRoutes(kit: TestKitControls) {
  const clockJson = () => {
    const nowMs = kit.clock.nowMs()
    return { now: new Date(nowMs).toISOString(), now_ms: nowMs, offset_seconds: kit.clock.offsetMs() / 1000 }
  }
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(
      '/admin/v1/test/clock',
      { schema: { operationId: 'readTestClock', tags: ['test'], summary: "The service's clock", response: responses({ 200: json('The clock.', CLOCK) }) } },
      async () => clockJson(),
    )

    app.post<{ Body: { advance_seconds?: number; set?: string } }>(
      '/admin/v1/test/clock',
      {
        schema: {
          operationId: 'moveTestClock',
          tags: ['test'],
          summary: "Moves the service's clock: token and code lifetimes, the timestamp window, rate-limit windows, sessions and the audit's times follow it",
          body: CLOCK_MOVE,
          response: responses({ 200: json('The clock, moved.', CLOCK) }, 400),
        },
      },
      async (request) => {
        const { advance_seconds, set } = request.body
        if (advance_seconds !== undefined) kit.clock.advance(Math.round(advance_seconds * 1000))
        if (set !== undefined && !kit.clock.set(Date.parse(set))) {
          throw new ProblemError(400, PROBLEM_TYPES.validation, 'The clock cannot go back before the server started.', [
            { in: 'body', field: 'set', detail: 'is before the moment the server started' },
          ])
        }
        return clockJson()
      },
    )

    app.post(
      '/admin/v1/test/reset',
      {
        schema: {
          operationId: 'resetTestState',
          tags: ['test'],
          summary: 'Back to the seed: every token, grant, session, nonce, limit count, fault and journal entry made since is gone (the admin tokens and the clock stay)',
          response: responses(noContent),
        },
      },
      async (_request, reply) => {
        await kit.reset()
        return reply.code(204).send()
      },
    )
  }
}

/** Every control call of the test mode: the clock and reset, consent, and seeding. */
export async function registerTestKit(app: FastifyInstance, kit: TestKitControls): Promise<void> {
  await app.register(testKitRoutes(kit))
  await app.register(testConsentRoutes)
  await app.register(testFaultRoutes(kit.faults))
  await app.register(testJournalRoutes(kit.journal))
  await app.register(async (seeding) => {
    // Limits are made when the server starts: a later seed cannot change them, so it may not name them.
    seeding.addHook('preHandler', async (request) => {
      const body = request.body as { limits?: unknown } | undefined
      if (body?.limits === undefined) return
      throw new ProblemError(400, PROBLEM_TYPES.validation, 'Limits are set when the test mode starts (--seed, or the seed given to startLatchkey).', [
        { in: 'body', field: 'limits', detail: 'is taken at start only' },
      ])
    })
    // What a seed made is part of the state a reset goes back to.
    seeding.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 200) await kit.keep()
      return payload
    })
    await seeding.register(testSeedRoutes)
  })
}
