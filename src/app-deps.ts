import type { Logger } from 'pino'
import type { HomeDemo } from './pages/views/home.ts'
import type { DomainDeps } from './domain/deps.ts'
import type { RequestTracing } from './observability/tracing.ts'
import type { FaultQueue } from './web/test-kit/faults.ts'
import type { RequestJournal } from './web/test-kit/journal.ts'

// What the HTTP service is built from (app.ts), in a module of its own: the pages plugin reads it
// too, and app.ts registers the pages plugin, so neither imports the other.

export interface HttpSettings {
  /** Development mode: plain HTTP is accepted. */
  dev: boolean
  publicUrl: URL | undefined
  /** Addresses/CIDRs whose X-Forwarded-* headers are believed. */
  trustProxy: string[]
  https?: { cert: Buffer; key: Buffer }
  /** Signs the consent pages' session cookies; with several, the first signs and all are accepted (rotation). */
  cookieSecret: string | string[]
  /** The Strict-Transport-Security value sent on HTTPS answers in production (undefined: none). */
  hsts?: string | undefined
  /** Anyone may create an account at /console/signup. */
  allowSignup?: boolean
  /** One log line per request (AccessLog, src/web/access-log.ts); false is `--access-log off`. Default on. */
  accessLog?: boolean
  /** The front door at / and the docs at /docs/ (`--home`, default on); undefined: off. */
  home?: HomeSettings | undefined
  /**
   * Test mode's `--auto-consent SCREEN_NAME`: every authorize page approves at once as this person
   * and answers what "Authorize app" would have (the redirect, or the PIN page). Undefined: off.
   */
  autoConsent?: string | undefined
}

export interface HomeSettings {
  /** Development only: the demo the first start made (src/cli/dev-demo.ts), shown again; undefined if none. */
  demo(): HomeDemo | undefined
  /** The admin API's base URL once its listener listens (undefined when it has none). */
  adminUrl(): string | undefined
}

/** The metrics the app records and, with --metrics-public, serves on GET /metrics. */
export interface AppMetrics {
  httpRequest(route: string, method: string, status: number, seconds: number): void
  /** Set with --metrics-public: this process's (or, with workers, every worker's) metrics. */
  publicScrape?: (() => Promise<string>) | undefined
}

export interface AppDeps {
  domain: DomainDeps
  http: HttpSettings
  logger: Logger
  metrics?: AppMetrics
  /** Set when an OTLP endpoint is: a server span per request. */
  tracing?: RequestTracing | undefined
  /**
   * Test mode only (`serve --test`): X's failures on demand and the request journal
   * (src/web/test-kit/). Absent, nothing of them is installed on the request path.
   */
  testKit?: TestKit | undefined
}

export interface TestKit {
  faults: FaultQueue
  journal: RequestJournal
}
