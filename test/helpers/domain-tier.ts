import assert from 'node:assert/strict'
import type { DomainDeps } from '../../src/domain/deps.ts'
import type { RequestInput } from '../../src/domain/request.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { signRequest, type SignOptions } from './oauth1-client.ts'
import { openTestDomain, testClock, type TestSettings } from './test-domain.ts'

// The domain tier: the use cases called as functions, on the real stores over a fresh SQLite
// database (openTestDomain: the real migrations, sealing and units of work), with a clock the test
// moves. No HTTP: a test takes milliseconds, which is what lets mutation testing run the domain rules.
// On the PostgreSQL pass (the storage tier runs this tier again so), the database is a PostgreSQL
// schema of the test's own, where transactions and types behave differently; nonces and limits stay
// in memory, on the tier's clock (their Redis stores have contracts of their own).

/** 2026-01-01T00:00:00Z: a fixed start, so every timestamp a test signs is known. */
export const FIXED_START_MS = Date.UTC(2026, 0, 1)

/** The public URL the domain tier's requests are signed for. */
export const TIER_URL = 'https://api.example.test'

export interface DomainTier {
  domain: DomainDeps
  clock: ReturnType<typeof testClock>
  /** The fixed clock's time as an OAuth timestamp (seconds). */
  nowSeconds(): number
  close(): Promise<void>
}

/** The domain deps as the composition root builds them, on fresh storage (see above) and a fixed clock. */
export async function openDomainTier(options: { settings?: TestSettings; startMs?: number } = {}): Promise<DomainTier> {
  const clock = testClock(options.startMs ?? FIXED_START_MS)
  // The nonce store counts as complete from an hour before the fixed start, as in a server that has
  // been running: a request stamped up to the skew behind the clock is judged by its timestamp alone.
  const opened = await openTestDomain({ clock, settings: options.settings, stateInMemory: true, nonceEpochMs: clock.nowMs() - 3_600_000 })
  return { domain: opened.domain, clock, nowSeconds: () => Math.floor(clock.nowMs() / 1000), close: opened.close }
}

/**
 * A request signed by the independent oauth-1.0a library (test/helpers/oauth1-client.ts), as the
 * framework-free input the use cases take. The URL's path is relative to TIER_URL; the timestamp is
 * the tier clock's unless given.
 */
export function signedInput(tier: DomainTier, options: Omit<SignOptions, 'url'> & { path: string }, extra: Partial<RequestInput> = {}): RequestInput {
  const { path, ...rest } = options
  const signed = signRequest({ timestamp: tier.nowSeconds(), ...rest, url: `${TIER_URL}${path}` })
  return { ...inputOf(signed.method, signed.url, signed.headers, signed.body), ...extra }
}

/** Any request (signed or not) as the use cases take it. */
export function inputOf(method: string, url: string, headers: Record<string, string>, body?: string): RequestInput {
  const parsed = new URL(url)
  return {
    method,
    scheme: parsed.protocol.slice(0, -1),
    host: parsed.host,
    path: parsed.pathname,
    query: parsed.search.slice(1),
    authorization: headers.authorization,
    contentType: headers['content-type'],
    body,
    isSecure: parsed.protocol === 'https:',
    clientAddress: '192.0.2.1',
  }
}

/** Awaits `work` and asserts it threw the service error with this code (the code a client would see). */
export async function assertServiceError(work: Promise<unknown>, code: number, message?: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`)
    assert.equal(error.code, code, message ?? error.message)
    return true
  })
}

/**
 * The domain tier's form of assertRefusedOnlyWhenBroken: the broken call is refused with `code`,
 * then the same call unbroken succeeds and its result is returned.
 */
export async function assertRefusedOnlyWhenBrokenCall<T>(call: (variant: 'broken' | 'unbroken') => Promise<T>, code: number): Promise<T> {
  await assertServiceError(call('broken'), code, 'the broken call')
  return call('unbroken')
}
