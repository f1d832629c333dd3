import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'

/** A span as an OTLP/HTTP (JSON) collector receives it. */
export interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes?: Array<{ key: string; value: Record<string, unknown> }>
  /** 1 ok, 2 error; absent or 0 when unset. */
  status?: { code?: number }
}

export interface OtlpReceiver {
  server: Server
  url: string
  spans: OtlpSpan[]
  /** The service name of each batch. */
  serviceNames: string[]
  /** The instrumentation scope (tracer) name of each batch of spans. */
  scopeNames: string[]
}

/** An OTLP/HTTP receiver: keeps every span posted to /v1/traces, and the service name of each batch. */
export async function startReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = []
  const serviceNames: string[] = []
  const scopeNames: string[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      assert.equal(request.url, '/v1/traces')
      const payload = JSON.parse(body) as {
        resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ scope?: { name?: string }; spans: OtlpSpan[] }> }>
      }
      for (const resourceSpans of payload.resourceSpans) {
        serviceNames.push(String(resourceSpans.resource.attributes?.find((a) => a.key === 'service.name')?.value.stringValue))
        for (const scope of resourceSpans.scopeSpans) {
          scopeNames.push(String(scope.scope?.name))
          spans.push(...scope.spans)
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { server, url: `http://127.0.0.1:${port}`, spans, serviceNames, scopeNames }
}

/** An attribute's value: its string, or its integer as a number. */
export const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((a) => a.key === key)?.value
  return value && (value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined))
}
