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
  return { scheme: connectionOf(request).protocol, host: request.host }
}

export interface Connection {
  /** The client's address (behind a trusted proxy, from X-Forwarded-For). */
  ip: string
  /** `https` or `http` as the client used it (behind a trusted proxy, from X-Forwarded-Proto). */
  protocol: string
}

/** Where a request keeps its Connection: a property of its own, cheaper per request than a WeakMap entry. */
const CONNECTION = Symbol('latchkey.connection')

type WithConnection = FastifyRequest & { [CONNECTION]?: Connection }

/**
 * `request.ip` and `request.protocol`, read once per request: behind a trusted proxy each read of
 * Fastify's getters runs the proxy-address check again, and a request needs them in several
 * places (the HTTPS rule, the address limits, the base string, the audit trail, the access line).
 */
export function connectionOf(request: FastifyRequest): Connection {
  return ((request as WithConnection)[CONNECTION] ??= { ip: request.ip, protocol: request.protocol })
}

/** The path of the request as sent on the wire, without its query. */
export function requestPath(request: FastifyRequest): string {
  const url = request.url
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/** The raw query string (without `?`), or ''. */
export function rawQuery(request: FastifyRequest): string {
  const url = request.url
  const q = url.indexOf('?')
  return q === -1 ? '' : url.slice(q + 1)
}
