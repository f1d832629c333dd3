// The serve process's housekeeping, driven by the clock: node:test's mock timers fire its minute
// timer, and the tier's clock is moved by the same amount, so an hour of housekeeping takes
// milliseconds. The storage tier runs this file on PostgreSQL too: what is checked is what the
// tables still hold.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, mock, test } from 'node:test'
import { checkAuthorizationRequest } from '../../src/domain/oauth2-user/authorization-request.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { approveAuthorizationRequest } from '../../src/domain/oauth2-user/consent.ts'
import { EXPIRED_KEPT_MS, startHousekeeping, type Housekeeping } from '../../src/domain/housekeeping.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openDomainTier, type DomainTier } from '../helpers/domain-tier.ts'

const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
const DAY_MS = 24 * HOUR_MS

describe('housekeeping', () => {
  let tier: DomainTier
  let housekeeping: Housekeeping | undefined
  const errors: string[] = []
  beforeEach(async () => {
    tier = await openDomainTier()
    errors.length = 0
  })
  afterEach(async () => {
    await housekeeping?.stop()
    housekeeping = undefined
    mock.timers.reset()
    await tier.close()
    assert.deepEqual(errors, [], 'no deletion failed')
  })

  const start = (auditRetentionDays: number) => {
    mock.timers.enable({ apis: ['setInterval'] })
    housekeeping = startHousekeeping(tier.domain, { auditRetentionDays, onError: (message) => errors.push(message) })
  }
  /** Moves the clock and fires the timer by the same time, then waits for the deletions it started. */
  const pass = async (ms: number) => {
    tier.clock.advance(ms)
    mock.timers.tick(ms)
    await housekeeping!.settled()
  }
  const rowsOf = async (userId: string) => (await tier.domain.stores.audit.list({ userId })).map((row) => row.event)
  const prunedRows = async () => (await tier.domain.stores.audit.list({ limit: 1000 })).filter((row) => row.event === 'audit.pruned')

  test('the audit rows past the retention are deleted at start and then every hour, the second as well as the first', async () => {
    const first = (await makeUser(tier.domain)).user
    start(1)
    await housekeeping!.settled()
    assert.deepEqual(await rowsOf(first.id), ['user.created'], 'a row younger than the retention stays at start')

    tier.clock.advance(DAY_MS)
    const second = (await makeUser(tier.domain)).user
    await pass(HOUR_MS)
    assert.deepEqual(await rowsOf(first.id), [], 'a day and an hour old: deleted at the first hour')
    assert.deepEqual(await rowsOf(second.id), ['user.created'])

    await pass(HOUR_MS)
    assert.deepEqual(await rowsOf(second.id), ['user.created'], 'not yet a day old at the second hour')
    tier.clock.advance(DAY_MS - 2 * HOUR_MS)
    await pass(HOUR_MS)
    assert.deepEqual(await rowsOf(second.id), [], 'a day and an hour old: deleted at a later hour')
    assert.deepEqual((await prunedRows()).map((row) => row.detail?.via), ['retention', 'retention'], 'each cut is recorded')
  })

  test('--audit-retention 0 keeps every row, however old, hour after hour', async () => {
    const person = (await makeUser(tier.domain)).user
    start(0)
    tier.clock.advance(3650 * DAY_MS)
    await pass(3 * HOUR_MS)
    assert.deepEqual(await rowsOf(person.id), ['user.created'])
    assert.deepEqual(await prunedRows(), [])
  })

  test('an OAuth 2.0 authorization code is deleted once it has been expired for an hour, not before', async () => {
    const app = await makeApp(tier.domain, { callbackUrls: ['https://client.example/cb'] })
    const client = (await setOAuth2Client(tier.domain, { appId: app.id, setting: 'public' })).client!
    const person = (await makeUser(tier.domain)).user
    const newCode = async () => {
      const check = await checkAuthorizationRequest(tier.domain, {
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: 'https://client.example/cb',
        scope: 'users.read',
        state: 'state',
        code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
        code_challenge_method: 'S256',
      })
      if (check.outcome !== 'valid') assert.fail(`the authorization request was refused: ${check.redirectTo}`)
      const approved = await approveAuthorizationRequest(tier.domain, check.request, { userId: person.id, address: null })
      return new URL(approved.redirectTo).searchParams.get('code')!
    }
    start(0)
    const old = await newCode()
    tier.clock.advance(EXPIRED_KEPT_MS)
    const young = await newCode()
    await pass(MINUTE_MS)
    const redeem = async (code: string) => (await tier.domain.stores.oauth2Codes.redeem(code, tier.clock.nowMs())).outcome
    assert.equal(await redeem(old), 'unknown', 'expired an hour ago: deleted')
    assert.equal(await redeem(young), 'redeemed', 'expired less than an hour ago: still there (a replay is still known as one)')
  })

  test('a sign-in elsewhere (OpenID Connect, login delegation) is deleted once it has been expired for an hour; until then it is known as expired', async () => {
    const signIn = (id: string) => ({ id, kind: 'delegation' as const, provider: 'login', browser: 'b', returnTo: '/console', forceLogin: false, createdAtMs: tier.clock.nowMs(), expiresAtMs: tier.clock.nowMs() + 600_000 })
    start(0)
    await tier.domain.stores.externalSignIns.create(signIn('old-challenge'))
    tier.clock.advance(EXPIRED_KEPT_MS)
    await tier.domain.stores.externalSignIns.create(signIn('young-challenge'))
    tier.clock.advance(600_000)
    await pass(MINUTE_MS)
    const take = (id: string) => tier.domain.stores.externalSignIns.consume(id, 'b', tier.clock.nowMs())
    assert.deepEqual(await take('old-challenge'), { refused: 'unknown' })
    assert.deepEqual(await take('young-challenge'), { refused: 'expired' })
  })
})
