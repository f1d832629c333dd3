/**
 * The consent step of OAuth 1.0a as a browser without JavaScript does it, over plain HTTP: open
 * GET /oauth/authorize?oauth_token=…, read the page's form (its hidden fields, the CSRF token among
 * them, and its action), fill in username and password, press a button (`action=allow` or
 * `action=cancel`), and read where that leads: a 302 to the callback (web flow), a page with the
 * PIN in `#oauth_pin` (oob flow), or some other page.
 *
 * It keeps its own cookie jar, so the session cookie the page sets comes back with the form, as a
 * browser's would. The jar is deliberately small: one origin (the server under test), no Domain or
 * Path matching; a cookie is replaced when set again and dropped when set with Max-Age=0 or an
 * Expires in the past. Redirects are never followed: the callback is the client's URL, not ours.
 *
 * Real-browser tests of the same pages (Playwright) live elsewhere; this is for driving client
 * libraries through the whole flow.
 */

export interface PageAnswer {
  url: string
  status: number
  headers: Headers
  html: string
}

export type ConsentOutcome =
  /** A redirect (the web flow's callback, or Cancel's denied=…): the Location and its query. */
  | { kind: 'redirect'; status: number; location: string; query: URLSearchParams }
  /** The oob flow's PIN page: the digits inside the element with id="oauth_pin". */
  | { kind: 'pin'; pin: string; page: PageAnswer }
  /** Any other page (the oob denied page, a sign-in failure, an error page). */
  | { kind: 'page'; page: PageAnswer }

export interface ParsedForm {
  /** Absolute URL the form posts to. */
  action: string
  method: string
  /** Every named input with its value as the page wrote it (hidden fields, prefilled username…). */
  fields: Map<string, string>
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** Decodes the character references that can appear in an attribute value. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(parseInt(ref.slice(2), 16))
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10))
    return ENTITIES[ref.toLowerCase()] ?? whole
  })
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

/** The text inside the element with this id, tags stripped and whitespace trimmed; undefined if absent. */
export function textOfElement(html: string, id: string): string | undefined {
  const match = new RegExp(`<([a-zA-Z0-9]+)\\b[^>]*\\bid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html)
  return match ? decodeEntities((match[2] as string).replace(/<[^>]*>/g, '')).trim() : undefined
}

/** One person's browser: a cookie jar and the two things a browser does here, open a page and submit its form. */
export class BrowserLess {
  readonly cookies = new Map<string, string>()

  /** GET a page, sending and keeping cookies; redirects are returned, not followed. */
  async open(url: string): Promise<PageAnswer> {
    return this.request(url, { method: 'GET' })
  }

  /**
   * Submits the page's form with `fields` filled in (username, password…) and the button
   * `name=value` pressed, as application/x-www-form-urlencoded.
   */
  async submit(page: PageAnswer, fields: Record<string, string>, button: { name: string; value: string }): Promise<PageAnswer> {
    const form = parseForm(page.html, page.url)
    if (form.method !== 'post') throw new Error(`the form of ${page.url} uses ${form.method}, not post`)
    const body = new URLSearchParams([...form.fields])
    for (const [name, value] of Object.entries(fields)) body.set(name, value)
    body.set(button.name, button.value)
    return this.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    })
  }

  private async request(url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<PageAnswer> {
    const headers: Record<string, string> = { accept: 'text/html', ...init.headers }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    this.keepCookies(response.headers)
    return { url, status: response.status, headers: response.headers, html: await response.text() }
  }

  private keepCookies(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';')
      const eq = pair.indexOf('=')
      if (eq <= 0) continue
      const name = pair.slice(0, eq).trim()
      const expired = attrs.some((attr) => {
        const [key = '', value = ''] = attr.split('=').map((s) => s.trim())
        if (key.toLowerCase() === 'max-age') return Number(value) <= 0
        if (key.toLowerCase() === 'expires') return Date.parse(value) <= Date.now()
        return false
      })
      if (expired) this.cookies.delete(name)
      else this.cookies.set(name, pair.slice(eq + 1).trim())
    }
  }
}

/** What a page led to: a redirect, the PIN page, or another page. */
export function outcomeOf(answer: PageAnswer): ConsentOutcome {
  const location = answer.headers.get('location')
  if (answer.status >= 300 && answer.status < 400 && location) {
    return { kind: 'redirect', status: answer.status, location, query: new URL(location, answer.url).searchParams }
  }
  const pin = textOfElement(answer.html, 'oauth_pin')
  if (answer.status === 200 && pin !== undefined) return { kind: 'pin', pin, page: answer }
  return { kind: 'page', page: answer }
}

/**
 * A person opening the authorization URL the app sent them to (GET /oauth/authorize?oauth_token=…),
 * signing in with `username` and `password` on the page, and pressing "Authorize app" (or "Cancel").
 * Throws when the page itself does not open with 200.
 */
export async function consentInBrowser(
  authorizationUrl: string,
  person: { username: string; password: string },
  options: { action?: 'allow' | 'cancel'; browser?: BrowserLess } = {},
): Promise<ConsentOutcome> {
  const browser = options.browser ?? new BrowserLess()
  const page = await browser.open(authorizationUrl)
  if (page.status !== 200) throw new Error(`the consent page answered ${page.status}: ${page.html.slice(0, 300)}`)
  const answer = await browser.submit(page, { username: person.username, password: person.password }, { name: 'action', value: options.action ?? 'allow' })
  return outcomeOf(answer)
}
