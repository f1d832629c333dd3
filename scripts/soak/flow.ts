import { authorization, formPairs } from '../../bench/sign.ts'

/** The app and the person of the soak's three-legged flow. */
export interface FlowAccount {
  consumerKey: string
  consumerSecret: string
  callback: string
  username: string
  password: string
}

const PROXY = { 'x-forwarded-proto': 'https' }

/**
 * One complete three-legged flow as an app and a person's browser do it, behind what the server
 * takes for a TLS proxy: request token, the consent page and its form (sign in, allow), the
 * verifier from the callback, the access token, and one call with it. Throws on any unexpected answer.
 */
export async function completeFlow(target: { host: string; port: number }, account: FlowAccount): Promise<void> {
  const base = `http://${target.host}:${target.port}`
  const signedFor = `https://${target.host}:${target.port}`
  const consumer = { key: account.consumerKey, secret: account.consumerSecret }

  const requestToken = await expectOk(
    await fetch(`${base}/oauth/request_token`, {
      method: 'POST',
      headers: { ...PROXY, authorization: authorization({ method: 'POST', baseUri: `${signedFor}/oauth/request_token`, consumer, oauth: [['oauth_callback', account.callback]] }) },
    }),
    'request_token',
  )
  const token = { key: param(requestToken, 'oauth_token'), secret: param(requestToken, 'oauth_token_secret') }

  const page = await fetch(`${base}/oauth/authorize?oauth_token=${encodeURIComponent(token.key)}`, { headers: { ...PROXY, accept: 'text/html' } })
  const html = await expectOk(page, 'consent page')
  const cookies = page.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ')
  const fields = new URLSearchParams()
  for (const input of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(input[1]!, decodeHtml(input[2]!))
  fields.set('username', account.username)
  fields.set('password', account.password)
  fields.set('action', 'allow')
  const action = /<form[^>]*action="([^"]*)"/.exec(html)?.[1] ?? '/oauth/authorize'
  const consent = await fetch(new URL(decodeHtml(action), `${base}/oauth/authorize`), {
    method: 'POST',
    headers: { ...PROXY, cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
    redirect: 'manual',
  })
  const location = consent.headers.get('location')
  if (consent.status !== 302 || !location) throw new FlowError(`consent form: HTTP ${consent.status}`, await consent.text())
  const verifier = new URL(location).searchParams.get('oauth_verifier')
  if (!verifier) throw new FlowError('consent form: no verifier', location)

  const access = await expectOk(
    await fetch(`${base}/oauth/access_token`, {
      method: 'POST',
      headers: { ...PROXY, authorization: authorization({ method: 'POST', baseUri: `${signedFor}/oauth/access_token`, consumer, token, oauth: [['oauth_verifier', verifier]] }) },
    }),
    'access_token',
  )
  const accessToken = { key: param(access, 'oauth_token'), secret: param(access, 'oauth_token_secret') }
  await expectOk(
    await fetch(`${base}/1.1/account/verify_credentials.json`, {
      headers: { ...PROXY, authorization: authorization({ method: 'GET', baseUri: `${signedFor}/1.1/account/verify_credentials.json`, consumer, token: accessToken }) },
    }),
    'verify_credentials with the new token',
  )
}

/** A step that went wrong: the message is short (it keys the failure counts), the detail is the body. */
class FlowError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message)
  }
}

async function expectOk(response: Response, step: string): Promise<string> {
  const text = await response.text()
  if (response.status !== 200) throw new FlowError(`${step}: HTTP ${response.status}`, text.slice(0, 300))
  return text
}

function param(form: string, name: string): string {
  const value = formPairs(form).find(([key]) => key === name)?.[1]
  if (!value) throw new FlowError(`no ${name} in the answer`, form.slice(0, 300))
  return value
}

const decodeHtml = (text: string) => text.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>')
