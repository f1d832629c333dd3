import { z } from 'zod'
import { SIGN_IN_SETTINGS } from './sign-in-settings.ts'
import { bool, hstsPolicy, httpUrl, NOT_WHOLE, port, positiveInt, wholeNumber } from './setting-values.ts'

/**
 * Every setting of Latchkey, in one table: its command-line flag, its environment variable, its
 * default and what it means. docs/config.md is generated from this table (`npm run docs:config`),
 * and the loader reads nothing that is not here.
 */
export interface SettingDef<T extends z.ZodTypeAny = z.ZodTypeAny> {
  readonly flag: string
  readonly env: string
  readonly schema: T
  readonly default: z.input<T> | undefined
  /** A different default for the development server (`--dev`). */
  readonly devDefault?: z.input<T>
  /** A different default for the test mode (`--test`). */
  readonly testDefault?: z.input<T>
  readonly description: string
}

function setting<T extends z.ZodTypeAny>(def: SettingDef<T>): SettingDef<T> {
  return def
}

export const SETTINGS = {
  dev: setting({
    flag: '--dev',
    env: 'LATCHKEY_DEV',
    schema: bool,
    default: false,
    description: 'Development mode: plain HTTP on a loopback address, pretty logs, a demo user and app on first start.',
  }),
  test: setting({
    flag: '--test',
    env: 'LATCHKEY_TEST',
    schema: bool,
    default: false,
    description:
      "Test mode, for a client's test suite (docs/test-kit.md): a throwaway database, free ports on a loopback address, one JSON line on stdout with the addresses and an admin token, and the control calls under /admin/v1/test/. Refused beside --dev, TLS, PostgreSQL, Redis or another address.",
  }),
  seed: setting({
    flag: '--seed <file>',
    env: 'LATCHKEY_SEED',
    schema: z.string().min(1).optional(),
    default: undefined,
    description: 'Test mode: a seed file (JSON, docs/seed.schema.json) of people, apps and ready credentials, applied at start.',
  }),
  autoConsent: setting({
    flag: '--auto-consent <screen_name>',
    env: 'LATCHKEY_AUTO_CONSENT',
    schema: z.string().regex(/^[A-Za-z0-9_]{1,15}$/, 'must be a screen name').optional(),
    default: undefined,
    description: 'Test mode: every authorize page approves at once as this person and redirects, for apps that open a browser themselves.',
  }),
  host: setting({
    flag: '--host <address>',
    env: 'LATCHKEY_HOST',
    schema: z.string().min(1),
    default: '0.0.0.0',
    devDefault: '127.0.0.1',
    testDefault: '127.0.0.1',
    description: 'Address to listen on.',
  }),
  port: setting({
    flag: '--port <number>',
    env: 'LATCHKEY_PORT',
    schema: port,
    default: 8443,
    devDefault: 8080,
    testDefault: 0,
    description: 'Port to listen on (0 picks a free one).',
  }),
  adminHost: setting({
    flag: '--admin-host <address>',
    env: 'LATCHKEY_ADMIN_HOST',
    schema: z.string().min(1),
    default: '127.0.0.1',
    description: 'Address the admin API listens on. Off a loopback address the admin API requires --tls-cert/--tls-key, in development too.',
  }),
  adminPort: setting({
    flag: '--admin-port <number>',
    env: 'LATCHKEY_ADMIN_PORT',
    schema: port.optional(),
    default: undefined,
    devDefault: 8081,
    testDefault: 0,
    description: 'Port of the admin API (0 picks a free one); in production it is off unless given.',
  }),
  database: setting({
    flag: '--database <url>',
    env: 'LATCHKEY_DATABASE_URL',
    schema: z.string().min(1),
    default: './data/latchkey.sqlite',
    testDefault: ':memory:',
    description:
      'A SQLite file path or sqlite: URL (the embedded default), or a postgres:// URL (add ?options=-c%20search_path%3Dname for a schema of its own). In test mode `:memory:` (the default there) is a throwaway file, removed when the server stops.',
  }),
  redis: setting({
    flag: '--redis <url>',
    env: 'LATCHKEY_REDIS_URL',
    schema: z.string().regex(/^rediss?:\/\//i, 'must be a redis:// or rediss:// URL').optional(),
    default: undefined,
    description:
      'Redis for the nonce store and the rate-limit counters, shared by every instance. Without it they live in the memory of the one process.',
  }),
  redisKeyPrefix: setting({
    flag: '--redis-key-prefix <prefix>',
    env: 'LATCHKEY_REDIS_KEY_PREFIX',
    schema: z.string().min(1).max(100),
    default: 'latchkey:',
    description: 'Prefix of every Redis key, so that several deployments can share one Redis.',
  }),
  singleInstance: setting({
    flag: '--single-instance',
    env: 'LATCHKEY_SINGLE_INSTANCE',
    schema: bool,
    default: false,
    description:
      'Declares that this is the only Latchkey process on its database, which allows PostgreSQL without Redis (nonces and limits in memory).',
  }),
  workers: setting({
    flag: '--workers <n>',
    env: 'LATCHKEY_WORKERS',
    schema: positiveInt,
    default: 1,
    description: 'Processes that serve on the one port (node:cluster). More than one needs --redis.',
  }),
  publicUrl: setting({
    flag: '--public-url <url>',
    env: 'LATCHKEY_PUBLIC_URL',
    schema: httpUrl.optional(),
    default: undefined,
    description: 'The scheme and host clients use (for example https://api.example.com); signatures are checked against it.',
  }),
  oidcProviders: setting({
    flag: '--oidc-providers <file>',
    env: 'LATCHKEY_OIDC_PROVIDERS',
    schema: z.string().min(1).optional(),
    default: undefined,
    description: 'A JSON file of OpenID Connect providers people may sign in with (docs/accounts.md), checked at start.',
  }),
  tlsCert: setting({
    flag: '--tls-cert <file>',
    env: 'LATCHKEY_TLS_CERT',
    schema: z.string().min(1).optional(),
    default: undefined,
    description: 'PEM certificate file: the server speaks TLS itself.',
  }),
  tlsKey: setting({
    flag: '--tls-key <file>',
    env: 'LATCHKEY_TLS_KEY',
    schema: z.string().min(1).optional(),
    default: undefined,
    description: 'PEM private key file for --tls-cert.',
  }),
  hsts: setting({
    flag: '--hsts <policy>',
    env: 'LATCHKEY_HSTS',
    schema: hstsPolicy,
    default: 'on',
    description:
      'Strict-Transport-Security on every HTTPS answer in production: `on` (max-age=31536000), `off`, or a comma list of `max-age=SECONDS`, `includeSubDomains`, `preload`.',
  }),
  allowSignup: setting({
    flag: '--allow-signup',
    env: 'LATCHKEY_ALLOW_SIGNUP',
    schema: bool,
    default: false,
    devDefault: true,
    description: 'Anyone may create an account at /console/signup (on in development, off in production: accounts then come from the CLI or the admin API).',
  }),
  trustProxy: setting({
    flag: '--trust-proxy <addresses>',
    env: 'LATCHKEY_TRUST_PROXY',
    schema: z.string().min(1).optional(),
    default: undefined,
    description: 'Comma-separated addresses or CIDR ranges of trusted reverse proxies; their X-Forwarded-Proto/Host are believed, and only they may call /latchkey/forward-auth (docs/forward-auth.md).',
  }),
  masterKey: setting({
    flag: '--master-key <json>',
    env: 'LATCHKEY_MASTER_KEY',
    schema: z.string().min(1).optional(),
    default: undefined,
    description: 'The master keyring inline (the JSON that `latchkey keys init --print` writes); wins over the key file.',
  }),
  masterKeyFile: setting({
    flag: '--master-key-file <file>',
    env: 'LATCHKEY_MASTER_KEY_FILE',
    schema: z.string().min(1),
    default: './.latchkey/master-key.json',
    description: 'The master keyring file that seals secrets at rest; the development server makes it on first start. Keep it out of backups of the database.',
  }),
  cookieSecret: setting({
    flag: '--cookie-secret <secret>',
    env: 'LATCHKEY_COOKIE_SECRET',
    schema: z.string().min(32, 'must be at least 32 characters').optional(),
    default: undefined,
    description:
      'Key that signs the browser session cookies; by default one derived from the master keyring, so every instance that shares the keys shares sessions.',
  }),
  logLevel: setting({
    flag: '--log-level <level>',
    env: 'LATCHKEY_LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    testDefault: 'warn',
    description: 'Log level (logs are JSON in production, pretty in development).',
  }),
  home: setting({
    flag: '--home <on|off>',
    env: 'LATCHKEY_HOME',
    schema: z.enum(['on', 'off']).transform((v) => v === 'on'),
    default: 'on',
    description:
      'The front door at / (what this service is, links to the console, the docs and the OpenAPI documents; in development the demo credentials too) and the docs at /docs/. off: / answers 404.',
  }),
  accessLog: setting({
    flag: '--access-log <on|off>',
    env: 'LATCHKEY_ACCESS_LOG',
    schema: z.enum(['on', 'off']).transform((v) => v === 'on'),
    default: 'on',
    description:
      'One info line per request (method, path without its query, status, ms, request id). off: none, for deployments whose proxy logs every request; other lines stay.',
  }),
  metricsPublic: setting({
    flag: '--metrics-public',
    env: 'LATCHKEY_METRICS_PUBLIC',
    schema: bool,
    default: false,
    description:
      'Also serve GET /metrics (Prometheus) on the public listener, to anyone who can reach it, over plain HTTP too (docs/metrics.md). Off: metrics only on the admin listener.',
  }),
  otelEndpoint: setting({
    flag: '--otel-endpoint <url>',
    // OpenTelemetry's own variable, so a deployment set up for OpenTelemetry needs nothing more.
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    schema: httpUrl.optional(),
    default: undefined,
    description:
      'OTLP/HTTP collector base URL (e.g. http://127.0.0.1:4318): traces go to its /v1/traces. Unset: no tracing, and no tracing code loaded. OTEL_SERVICE_NAME (default latchkey) and OTEL_RESOURCE_ATTRIBUTES are honoured.',
  }),
  statsIntervalSeconds: setting({
    flag: '--stats-interval <seconds>',
    env: 'LATCHKEY_STATS_INTERVAL',
    schema: wholeNumber(z.number({ invalid_type_error: NOT_WHOLE }).int(NOT_WHOLE).min(0)),
    default: 0,
    description: 'Every this many seconds, a "process stats" log line: RSS, heap, event-loop delay p99, nonce-store entries (0: never).',
  }),
  logBufferBytes: setting({
    flag: '--log-buffer <bytes>',
    env: 'LATCHKEY_LOG_BUFFER',
    schema: positiveInt,
    default: 16 * 1024 * 1024,
    description:
      'Log lines waiting for a slow output are held up to this many bytes; beyond it they are dropped and counted, and a "log lines dropped" line says how many.',
  }),
  requestTokenTtlSeconds: setting({
    flag: '--request-token-ttl <seconds>',
    env: 'LATCHKEY_REQUEST_TOKEN_TTL',
    schema: positiveInt,
    default: 900,
    description: 'How long a request token can be authorized and exchanged.',
  }),
  timestampSkewSeconds: setting({
    flag: '--timestamp-skew <seconds>',
    env: 'LATCHKEY_TIMESTAMP_SKEW',
    schema: positiveInt,
    default: 300,
    description: 'Accepted distance between oauth_timestamp and the server clock, both ways; also the nonce window.',
  }),
  nonceCapacity: setting({
    flag: '--nonce-capacity <count>',
    env: 'LATCHKEY_NONCE_CAPACITY',
    schema: positiveInt,
    default: 14_000_000,
    description:
      'Nonces the store holds before it refuses new signed requests (503 code 130): per process in memory, about 11 bytes each, for the whole deployment in Redis, about 90 bytes each; the default covers the timestamp window at the most one process serves (docs/capacity.md).',
  }),
  nonceNearFullPercent: setting({
    flag: '--nonce-near-full <percent>',
    env: 'LATCHKEY_NONCE_NEAR_FULL',
    schema: wholeNumber(z.number({ invalid_type_error: NOT_WHOLE }).int(NOT_WHOLE).min(1).max(100)),
    default: 90,
    description:
      "Past this percentage of --nonce-capacity, an app's share is this many nonces divided equally among the apps holding nonces: an app holding its share gets 503 code 130, the others are served.",
  }),
  auditRetentionDays: setting({
    flag: '--audit-retention <days>',
    env: 'LATCHKEY_AUDIT_RETENTION',
    schema: wholeNumber(z.number({ invalid_type_error: NOT_WHOLE }).int(NOT_WHOLE).min(0)),
    default: 365,
    description: 'Audit rows older than this many days are deleted, once an hour, by serve (0: kept forever); `latchkey audit prune --before` deletes on demand.',
  }),
  signInMaxFailures: setting({
    flag: '--sign-in-max-failures <count>',
    env: 'LATCHKEY_SIGN_IN_MAX_FAILURES',
    schema: positiveInt,
    default: 5,
    description: 'Failed sign-ins per account or per address before the sign-in form answers 429.',
  }),
  signInWindowSeconds: setting({
    flag: '--sign-in-window <seconds>',
    env: 'LATCHKEY_SIGN_IN_WINDOW',
    schema: positiveInt,
    default: 900,
    description: 'The window in which failed sign-ins are counted.',
  }),
  revocationRetentionHours: setting({
    flag: '--revocation-retention <hours>',
    env: 'LATCHKEY_REVOCATION_RETENTION',
    schema: positiveInt,
    default: 72,
    description:
      'A revocation event a webhook endpoint has not taken this long after the credential ended is marked failed for it (`latchkey webhook replay` sends it again); delivered events are deleted after this long (docs/revocation-push.md).',
  }),
  webhookTimeoutSeconds: setting({
    flag: '--webhook-timeout <seconds>',
    env: 'LATCHKEY_WEBHOOK_TIMEOUT',
    schema: positiveInt,
    default: 5,
    description: 'How long a webhook delivery or CRC challenge may take before it counts as failed (the delivery is tried again later).',
  }),
  sessionIdleTimeoutSeconds: setting({
    flag: '--session-idle-timeout <seconds>',
    env: 'LATCHKEY_SESSION_IDLE_TIMEOUT',
    schema: positiveInt,
    default: 12 * 60 * 60,
    description:
      'A browser session (developer console, settings and consent pages) not used for this long ends: the next page asks to sign in. Enforced on the server.',
  }),
  sessionLifetimeSeconds: setting({
    flag: '--session-lifetime <seconds>',
    env: 'LATCHKEY_SESSION_LIFETIME',
    schema: positiveInt,
    default: 30 * 24 * 60 * 60,
    description: 'A browser session ends this long after sign-in, however much it is used. Enforced on the server.',
  }),
  bearerTokenCallsPerWindow: setting({
    flag: '--bearer-token-pace <count>',
    env: 'LATCHKEY_BEARER_TOKEN_PACE',
    schema: positiveInt,
    default: 60,
    description: 'Calls of POST /oauth2/token per app per window; the next gets 403 code 99.',
  }),
  rateLimits: setting({
    flag: '--rate-limits <json>',
    env: 'LATCHKEY_RATE_LIMITS',
    schema: z.union([
      z.record(z.number().int().positive()),
      z.string().transform((text, ctx) => {
        try {
          return z.record(z.number().int().positive()).parse(JSON.parse(text))
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON object of endpoint → calls per window, e.g. {"/oauth/request_token":100}' })
          return z.NEVER
        }
      }),
    ]),
    default: {},
    description: 'Overrides of the per-endpoint limits (docs/rate-limits.md lists them), as a JSON object.',
  }),
  rateLimitMultiplier: setting({
    flag: '--rate-limit-multiplier <n>',
    env: 'LATCHKEY_RATE_LIMIT_MULTIPLIER',
    schema: z.coerce.number().positive(),
    default: 1,
    description: 'Multiplies every limit, the /oauth2/token pace rule included (for load tests and benchmarks).',
  }),
  rateLimitWindowSeconds: setting({
    flag: '--rate-limit-window <seconds>',
    env: 'LATCHKEY_RATE_LIMIT_WINDOW',
    schema: positiveInt,
    default: 900,
    description: 'Length of a rate-limit window.',
  }),
  ...SIGN_IN_SETTINGS,
} as const

export type SettingName = keyof typeof SETTINGS
export type Config = Readonly<{ [K in SettingName]: z.output<(typeof SETTINGS)[K]['schema']> }>
