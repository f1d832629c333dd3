// The test tiers: the one table of which files run, on which backend, in which group. `npm test`
// runs every tier in this order; `npm run test:<tier>` runs one. docs/testing.md explains each.
//
// A group runs its files with node:test, several at once (each test opens its own SQLite file or
// PostgreSQL schema and Redis key prefix). `sqlite` is the embedded default: SQLite, nonces and
// limits in memory. `postgres` sets LATCHKEY_TEST_DATABASE_URL and LATCHKEY_TEST_REDIS_URL: only
// where the backend changes what is tested. `serial` groups run alone, one file at a time, after the
// rest: they need the machine to themselves (load at full speed).

/** Files that need the machine to themselves: only a serial group runs them. */
export const SERIAL_PATHS = ['test/soak', 'test/bench/smoke.test.ts']

/** The admin API's and the pages' fuzzes: the http tier runs them at the default count, the long form at full count; both on both backends. */
const ADMIN_AND_PAGE_FUZZ = ['test/admin/hostile-requests.test.ts', 'test/pages/console/hostile-requests.test.ts']

/** @typedef {{ backend: 'sqlite' | 'postgres', paths: string[], serial?: boolean, env?: Record<string, string> }} Group */
/** @typedef {{ name: string, proves: string, groups: Group[] }} Tier */

/** @type {Tier[]} */
export const TIERS = [
  {
    name: 'unit',
    proves: 'the OAuth core and the use cases as functions, on SQLite; the config, the docs and the bench report checked against the code',
    groups: [{ backend: 'sqlite', paths: ['test/protocol', 'test/domain', 'test/config', 'test/docs', 'test/bench'] }],
  },
  {
    name: 'storage',
    proves: 'every store contract on SQLite, PostgreSQL and Redis; the use cases again on PostgreSQL',
    groups: [
      { backend: 'sqlite', paths: ['test/storage'] },
      {
        backend: 'postgres',
        paths: [
          'test/storage/postgres.test.ts',
          'test/storage/redis.test.ts',
          'test/storage/unavailable.test.ts',
          'test/storage/sql',
          'test/storage/secrets-at-rest.test.ts',
          'test/storage/copy.test.ts',
          'test/storage/validity-cache.test.ts',
          'test/scripts',
          'test/domain',
        ],
      },
    ],
  },
  {
    name: 'http',
    proves: 'the whole service through Fastify: API, pages, console, admin API, metrics and traces',
    groups: [
      { backend: 'sqlite', paths: ['test/http', 'test/web', 'test/pages', 'test/admin', 'test/observability'] },
      {
        backend: 'postgres',
        paths: [
          'test/observability/metrics.test.ts',
          'test/observability/tracing.test.ts',
          ...ADMIN_AND_PAGE_FUZZ,
          'test/admin/bad-input.test.ts',
          'test/admin/fuzz-findings.test.ts',
          'test/admin/text-fields.test.ts',
          'test/admin/test-kit-consent.test.ts',
          'test/admin/user-import.test.ts',
          'test/pages/console/text-fields.test.ts',
          'test/pages/console/sudo.test.ts',
          'test/pages/oidc',
          'test/http/check-request.test.ts',
          'test/http/remote-verifier.test.ts',
          'test/http/nonce-store-share.test.ts',
          'test/http/redis-round-trips.test.ts',
          'test/http/oauth2-user.test.ts',
          'test/http/unreadable-secrets.test.ts',
          'test/admin/login-challenges.test.ts',
          'test/pages/password-sign-in-off.test.ts',
        ],
      },
    ],
  },
  {
    name: 'e2e',
    proves: 'real client libraries, Chromium, the CLI and serve as processes, crashes, restarts, hostile input, two instances',
    groups: [
      { backend: 'sqlite', paths: ['test/e2e', 'test/conformance', 'test/cli', 'test/testing'] },
      { backend: 'postgres', paths: ['test/e2e/two-instances.test.ts', 'test/e2e/oidc-two-instances.test.ts', 'test/e2e/forward-auth-proxies.test.ts', 'test/e2e/validity-shared.test.ts', 'test/e2e/revocation-push.test.ts', 'test/e2e/browser/login-delegation.test.ts', 'test/e2e/login-delegation-two-instances.test.ts', 'test/cli/user-unlink.test.ts', 'test/cli/serve/workers.test.ts', 'test/cli/serve/development-database.test.ts', 'test/cli/copy.test.ts'] },
      { backend: 'sqlite', paths: SERIAL_PATHS, serial: true },
    ],
  },
]

/** `npm run test:full`: every file on both backends, the suite's widest form. */
export const FULL = {
  name: 'full',
  proves: 'every file on both backends',
  groups: ['sqlite', 'postgres'].flatMap((backend) => [
    { backend, paths: ['test'] },
    { backend, paths: SERIAL_PATHS, serial: true },
  ]),
}

/** `npm run test:long`: the long forms CI runs after npm test: the soak at length, the fuzz at full count. */
const LONG_ENV = { LATCHKEY_SOAK_MINUTES: '2', LATCHKEY_FUZZ_RUNS: '25000' }
export const LONG = {
  name: 'long',
  proves: 'the soak at length on both backends, the fuzzes at full count (the admin API and console one on both)',
  groups: [
    { backend: 'sqlite', paths: [...ADMIN_AND_PAGE_FUZZ, 'test/http/hostile-requests.test.ts', 'test/soak'], serial: true, env: LONG_ENV },
    // On PostgreSQL + Redis each request costs about twice as much: 10,000 there.
    { backend: 'postgres', paths: [...ADMIN_AND_PAGE_FUZZ, 'test/soak'], serial: true, env: { ...LONG_ENV, LATCHKEY_FUZZ_RUNS: '10000' } },
  ],
}
