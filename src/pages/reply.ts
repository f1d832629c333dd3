import type { FastifyReply } from 'fastify'
import { SCRIPT_HASH, STYLE_HASH } from './views/layout.ts'

/**
 * Where a page's form may lead. Chromium applies CSP form-action to the redirects that follow a
 * submission too, so a consent form must also allow the callback it will redirect to;
 * the console's pages post only to themselves; pages without a form allow none.
 */
export type FormTarget = { kind: 'none' } | { kind: 'self' } | { kind: 'consent'; callback: string }

const HTTP_SOURCE = /^https?:\/\/(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/
const SCHEME_SOURCE = /^[a-z][a-z0-9+.-]*:$/

/** The CSP source for a callback: its origin (http/https) or its scheme (myapp:); undefined if unsayable. */
export function callbackSource(callback: string): string | undefined {
  let url: URL
  try {
    url = new URL(callback)
  } catch {
    return undefined
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    return HTTP_SOURCE.test(url.origin) ? url.origin : undefined
  }
  return SCHEME_SOURCE.test(url.protocol) ? url.protocol : undefined
}

function formAction(target: FormTarget): string | undefined {
  if (target.kind === 'none') return "form-action 'none'"
  if (target.kind === 'self') return "form-action 'self'"
  if (target.callback === 'oob') return "form-action 'self'"
  const source = callbackSource(target.callback)
  // Omitting the directive is safer than one that would block the person's own redirect.
  return source === undefined ? undefined : `form-action 'self' ${source}`
}

export function contentSecurityPolicy(target: FormTarget): string {
  const directives = [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    `script-src ${SCRIPT_HASH}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
    formAction(target),
  ]
  return directives.filter((d) => d !== undefined).join('; ')
}

/** Headers every pages response carries: no framing, no caching, no referrer (URLs hold tokens). */
function secureHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
}

export function sendPage(reply: FastifyReply, status: number, body: string, target: FormTarget = { kind: 'none' }) {
  return secureHeaders(reply)
    .header('content-security-policy', contentSecurityPolicy(target))
    .code(status)
    .type('text/html; charset=utf-8')
    .send(body)
}

export function sendRedirect(reply: FastifyReply, location: string) {
  return secureHeaders(reply)
    .header('content-security-policy', contentSecurityPolicy({ kind: 'none' }))
    .header('location', location)
    .code(302)
    .type('text/html; charset=utf-8')
    .send('')
}
