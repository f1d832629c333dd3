import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

/** The session cookie's name (in production `__Host-` goes before it). */
export const SESSION_COOKIE = 'latchkey_session'

/** What a page answered: the same shape through Fastify's inject and over the network. */
export type PageAnswer = Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body' | 'cookies'> & {
  /** The absolute URL asked for: what a form's action and a redirect's Location are resolved against. */
  url: string
}

/** Where inject requests are said to go: what a relative URL is resolved against. */
const INJECT_ORIGIN = 'http://localhost'

/**
 * The tests' one browser: keeps every cookie it is given (by name; a cleared or expired one is
 * dropped) and sends them all back, never follows a redirect, and reads and submits forms. Given a
 * Fastify app it goes through `inject`, from `address`; without one it goes over the network to the
 * absolute URLs it is given (a `serve` process, a listening test server). The jar is deliberately
 * small: one origin, no Domain or Path matching.
 */
export class Browser {
  readonly cookies = new Map<string, string>()
  constructor(
    private readonly app?: FastifyInstance,
    readonly address = '127.0.0.1',
    /** Sent as User-Agent on every request, when given. */
    readonly userAgent?: string,
  ) {}

  /** Another browser holding a copy of these cookies, at the same app or another (one that signs cookies with other secrets). */
  copy(app = this.app): Browser {
    const copy = new Browser(app, this.address, this.userAgent)
    for (const [name, value] of this.cookies) copy.cookies.set(name, value)
    return copy
  }

  get(url: string): Promise<PageAnswer> {
    return this.request('GET', url)
  }

  post(url: string, fields: Record<string, string> | Array<[string, string]>): Promise<PageAnswer> {
    return this.request('POST', url, new URLSearchParams(fields).toString())
  }

  /** Loads the page at `url` and posts `fields` and its CSRF value (read from that page) to `action`. */
  async fill(url: string, action: string, fields: Record<string, string>): Promise<PageAnswer> {
    const page = await this.get(url)
    return this.post(action, { csrf_token: csrfOf(page.body), ...fields })
  }

  /**
   * Submits the page's first form as a browser would: its own fields (hidden ones, the CSRF value
   * among them), `fields` filled in (username, password…) and the button `name=value` pressed.
   */
  submit(page: PageAnswer, fields: Record<string, string>, button: { name: string; value: string }): Promise<PageAnswer> {
    const form = parseForm(page.body, page.url)
    if (form.method !== 'post') throw new Error(`the form of ${page.url} uses ${form.method}, not post`)
    const body = new URLSearchParams([...form.fields])
    for (const [name, value] of Object.entries(fields)) body.set(name, value)
    body.set(button.name, button.value)
    return this.post(form.action, [...body])
  }

  private async request(method: 'GET' | 'POST', url: string, form?: string): Promise<PageAnswer> {
    const headers: Record<string, string> = this.userAgent ? { 'user-agent': this.userAgent } : {}
    if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded'
    const answer = this.app ? await this.inject(this.app, method, url, headers, form) : await this.fetch(method, url, headers, form)
    assertFormsPostHome(answer)
    for (const cookie of answer.cookies) {
      const expired = cookie.maxAge !== undefined && cookie.maxAge <= 0 ? true : cookie.expires !== undefined && cookie.expires.getTime() <= Date.now()
      if (expired || cookie.value === '') this.cookies.delete(cookie.name)
      else this.cookies.set(cookie.name, cookie.value)
    }
    return answer
  }

  private async inject(app: FastifyInstance, method: 'GET' | 'POST', url: string, headers: Record<string, string>, form?: string): Promise<PageAnswer> {
    const response = await app.inject({ method, url, remoteAddress: this.address, headers, cookies: Object.fromEntries(this.cookies), ...(form === undefined ? {} : { payload: form }) })
    return { url: new URL(url, INJECT_ORIGIN).href, statusCode: response.statusCode, headers: response.headers, body: response.body, cookies: response.cookies }
  }

  private async fetch(method: 'GET' | 'POST', url: string, headers: Record<string, string>, form?: string): Promise<PageAnswer> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(url, { method, headers: { accept: 'text/html', ...headers, ...(cookie ? { cookie } : {}) }, body: form, redirect: 'manual' })
    const answerHeaders: PageAnswer['headers'] = Object.fromEntries(response.headers)
    answerHeaders['set-cookie'] = response.headers.getSetCookie()
    return { url, statusCode: response.status, headers: answerHeaders, body: await response.text(), cookies: response.headers.getSetCookie().flatMap(parseSetCookie) }
  }
}

/** One Set-Cookie line as inject reports it: the name, the value, and when it ends. */
function parseSetCookie(line: string): PageAnswer['cookies'] {
  const [pair = '', ...attributes] = line.split(';')
  const eq = pair.indexOf('=')
  if (eq <= 0) return []
  const cookie: PageAnswer['cookies'][number] = { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() }
  for (const attribute of attributes) {
    const [key = '', value = ''] = attribute.split('=').map((s) => s.trim())
    if (key.toLowerCase() === 'max-age') cookie.maxAge = Number(value)
    if (key.toLowerCase() === 'expires') cookie.expires = new Date(value)
  }
  return [cookie]
}

/**
 * Every page of the console and settings says where its forms may post: a page with a form only to
 * this site (`form-action 'self'`), any other answer nowhere. Checked on every answer a test's
 * browser receives.
 */
function assertFormsPostHome(answer: PageAnswer): void {
  const path = new URL(answer.url).pathname
  if (!/^\/(console|settings)(\/|$)/.test(path) || !String(answer.headers['content-type']).startsWith('text/html')) return
  const formAction = /(?:^|; )form-action ([^;]*)/.exec(String(answer.headers['content-security-policy']))?.[1]
  assert.equal(formAction, answer.body.includes('<form') ? "'self'" : "'none'", `form-action of ${answer.statusCode} ${path}`)
}

/** The hidden csrf_token of the page's form. */
export function csrfOf(page: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(page)
  assert.ok(match?.[1], 'the page has a csrf_token field')
  return match[1]
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** Decodes the character references that can appear in an attribute value or a text. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(parseInt(ref.slice(2), 16))
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10))
    return ENTITIES[ref.toLowerCase()] ?? whole
  })
}

/** The text inside the element with this id, tags stripped, references decoded, whitespace trimmed; undefined if absent. */
export function textOf(html: string, id: string): string | undefined {
  const match = new RegExp(`<([a-zA-Z0-9]+)\\b[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html)
  return match ? decodeEntities((match[2] as string).replace(/<[^>]*>/g, '')).trim() : undefined
}

/** The attributes of one start tag, names lower-cased, values decoded. */
function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const match of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const name = (match[1] as string).toLowerCase()
    if (!found.has(name)) found.set(name, decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''))
  }
  return found
}

export interface ParsedForm {
  /** Absolute URL the form posts to. */
  action: string
  method: string
  /** Every named input with its value as the page wrote it (hidden fields, prefilled username…). */
  fields: Map<string, string>
}

/** The first form of the page, as a browser would submit it (buttons excluded: the one pressed is added). */
export function parseForm(html: string, pageUrl: string): ParsedForm {
  const match = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html)
  if (!match) throw new Error(`no form on the page ${pageUrl}`)
  const formAttributes = attributes(match[1] as string)
  const fields = new Map<string, string>()
  for (const input of (match[2] as string).matchAll(/<input\b([^>]*)>/gi)) {
    const attrs = attributes(input[1] as string)
    const name = attrs.get('name')
    const type = (attrs.get('type') ?? 'text').toLowerCase()
    if (!name || type === 'submit' || type === 'button' || type === 'image' || attrs.has('disabled')) continue
    if ((type === 'checkbox' || type === 'radio') && !attrs.has('checked')) continue
    fields.set(name, attrs.get('value') ?? '')
  }
  return {
    action: new URL(formAttributes.get('action') ?? '', pageUrl).toString(),
    method: (formAttributes.get('method') ?? 'get').toLowerCase(),
    fields,
  }
}
