import type { FastifyInstance } from 'fastify'
import { buildApp, type AppDeps, type AppMetrics } from '../app.ts'
import type { Config } from '../config/settings.ts'
import type { Observability } from '../observability/setup.ts'
import { signInThrottleOf } from './root.ts'

/** The public app on a domain: the sign-in throttle made here, on the domain's limiters. */
export function composeApp(parts: Omit<AppDeps, 'throttle'>): Promise<FastifyInstance> {
  return buildApp({ ...parts, throttle: signInThrottleOf(parts.domain) })
}

/** What the public app records, and with `--metrics-public` serves on GET /metrics. */
export function appMetricsOf(config: Pick<Config, 'metricsPublic'>, observability: Observability): AppMetrics {
  return { httpRoute: observability.metrics.httpRoute, ...(config.metricsPublic ? { publicScrape: observability.scrape } : {}) }
}
