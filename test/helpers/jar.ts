import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

/**
 * A browser for inject tests: keeps every cookie it is given (by name; a cleared one is dropped)
 * and sends them all back, from one address.
 */
export class CookieBrowser {
  readonly cookies = new Map<string, string>()
  constructor(
    private readonly app: FastifyInstance,
    readonly address = '127.0.0.1',
    /** Sent as User-Agent on every request, when given. */
    readonly userAgent?: string,
  ) {}

  private get headers(): Record<string, string> {
    return this.userAgent ? { 'user-agent': this.userAgent } : {}
  }

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    assertFormsPostHome(response)
    for (const cookie of response.cookies) {
      const expired = cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now())
      if (expired || cookie.value === '') this.cookies.delete(cookie.name)
      else this.cookies.set(cookie.name, cookie.value)
    }
    return response
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(await this.app.inject({ method: 'GET', url, remoteAddress: this.address, headers: this.headers, cookies: Object.fromEntries(this.cookies) }))
  }

  async post(url: string, fields: Record<string, string> | Array<[string, string]>): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.address,
        headers: { ...this.headers, 'content-type': 'application/x-www-form-urlencoded' },
        cookies: Object.fromEntries(this.cookies),
        payload: new URLSearchParams(fields).toString(),
      }),
    )
  }

  /** Loads the page at `url` and posts its form (the CSRF value read from that page) to `action`. */
  async fill(url: string, action: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    const page = await this.get(url)
    return this.post(action, { csrf_token: csrfOf(page.body), ...fields })
  }
}

/**
 * Every page of the console and settings says where its forms may post: a page with a form only to
 * this site (`form-action 'self'`), any other answer nowhere. Checked on every answer a test's
 * browser receives.
 */
function assertFormsPostHome(response: LightMyRequestResponse): void {
  const path = new URL(response.raw.req.url ?? '/', 'http://page.test').pathname
  if (!/^\/(console|settings)(\/|$)/.test(path) || !String(response.headers['content-type']).startsWith('text/html')) return
  const formAction = /(?:^|; )form-action ([^;]*)/.exec(String(response.headers['content-security-policy']))?.[1]
  assert.equal(formAction, response.body.includes('<form') ? "'self'" : "'none'", `form-action of ${response.statusCode} ${path}`)
}

export function csrfOf(page: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(page)
  assert.ok(match?.[1], 'the page has a csrf_token field')
  return match[1]
}

/** The text of the element with this id. */
export function textOf(page: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(page)?.[1]
}
