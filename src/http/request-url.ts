import type { FastifyRequest } from 'fastify'

export interface PublicOrigin {
  scheme: string
  /** Host with its port when not the default one. */
  host: string
}

/**
 * The scheme and host as the client saw them, for signature base strings (RFC 5849 §3.4.1.2):
 * `--public-url` when set; else Fastify's view, which for a request from a trusted proxy already
 * reads X-Forwarded-Proto and X-Forwarded-Host, and otherwise the connection and the Host header.
 */
export function publicOrigin(request: FastifyRequest, publicUrl: URL | undefined): PublicOrigin {
  if (publicUrl) return { scheme: publicUrl.protocol.slice(0, -1), host: publicUrl.host }
  return { scheme: request.protocol, host: request.host }
}

/** The path of the request as sent on the wire, without its query. */
export function requestPath(request: FastifyRequest): string {
  const url = request.raw.url ?? '/'
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/** The raw query string (without `?`), or ''. */
export function rawQuery(request: FastifyRequest): string {
  const url = request.raw.url ?? '/'
  const q = url.indexOf('?')
  return q === -1 ? '' : url.slice(q + 1)
}
