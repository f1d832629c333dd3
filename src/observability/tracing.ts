import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Context, type Span } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { StorageInstrument } from './instrument-stores.ts'

/**
 * OpenTelemetry traces, loaded only when an OTLP endpoint is set (server.ts imports this module on
 * demand: without an endpoint no SDK is loaded and nothing is measured for traces). One server span
 * per request named after its route, a child span per storage call and one for the signature
 * check. Attributes are the route, the method, the status and the storage operation: never a
 * token, a key, a secret, an address or the query string.
 */

const DB_SYSTEMS = { sqlite: 'sqlite', postgres: 'postgresql', redis: 'redis' } as const

/** The headers of an incoming request, as Node gives them. */
type Headers = Record<string, string | string[] | undefined>

export interface RequestSpanStart {
  method: string
  /** The route pattern, or undefined for a request that matched no route. */
  route: string | undefined
  scheme: 'http' | 'https'
  /** 1.1 or 2 */
  httpVersion: string
  headers: Headers
}

/** A request's server span and the context that makes it the parent of what the request does. */
export interface RequestSpan {
  span: Span
  context: Context
}

export interface RequestTracing {
  /** Starts the server span, a child of the caller's span when the request carries a W3C traceparent. */
  startRequest(start: RequestSpanStart): RequestSpan
  /** Runs `next` (the rest of the request's handling) inside the span's context. */
  enter(requestSpan: RequestSpan, next: () => void): void
  endRequest(requestSpan: RequestSpan, status: number): void
}

export interface Tracing extends RequestTracing {
  storageInstrument: StorageInstrument
  /** A span around a step of the domain (the signature check). */
  step<T>(name: string, work: () => T): T
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>
}

/** `endpoint` is the collector's base URL (http://host:4318); traces go to its /v1/traces. */
export function startTracing(endpoint: string): Tracing {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES are read by the SDK's own detector and win.
  const resource = resourceFromAttributes({ 'service.name': 'latchkey' }).merge(detectResources({ detectors: [envDetector] }))
  const exporter = new OTLPTraceExporter({ url: new URL('v1/traces', endpoint.endsWith('/') ? endpoint : `${endpoint}/`).toString() })
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] })
  // The AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register()
  const tracer = trace.getTracer('latchkey')

  return {
    startRequest(start) {
      const parent = propagation.extract(ROOT_CONTEXT, start.headers)
      const route = start.route ?? 'unmatched'
      const attributes: Attributes = { 'http.request.method': start.method, 'url.scheme': start.scheme, 'network.protocol.version': start.httpVersion }
      if (start.route) attributes['http.route'] = start.route
      const span = tracer.startSpan(`${start.method} ${route}`, { kind: SpanKind.SERVER, attributes }, parent)
      return { span, context: trace.setSpan(parent, span) }
    },
    enter: (requestSpan, next) => context.with(requestSpan.context, next),
    endRequest({ span }, status) {
      span.setAttribute('http.response.status_code', status)
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    },
    storageInstrument: (backend, operation) => (call) =>
      tracer.startActiveSpan(
        operation,
        { kind: SpanKind.CLIENT, attributes: { 'db.system.name': DB_SYSTEMS[backend], 'db.operation.name': operation } },
        async (span) => {
          try {
            return await call()
          } catch (error) {
            span.setStatus({ code: SpanStatusCode.ERROR })
            throw error
          } finally {
            span.end()
          }
        },
      ),
    step: (name, work) =>
      tracer.startActiveSpan(name, (span) => {
        try {
          return work()
        } finally {
          span.end()
        }
      }),
    shutdown: () => provider.shutdown(),
  }
}
