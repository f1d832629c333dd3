import { Connection, rawRequest, type Answer } from './http-client.ts'
import { codeExchangeBody } from './setup.ts'
import { buildRequest, clientBasic, refreshRequest, verifyRequest, verifySignInput, type BenchCredentials, type OAuth2Credentials, type Target } from './shapes.ts'
import { signParams, tampered, toHeader } from './sign.ts'

function errorCode(answer: Answer): number | undefined {
  try {
    return (JSON.parse(answer.body) as { errors?: Array<{ code?: number }> }).errors?.[0]?.code
  } catch {
    return undefined
  }
}

function expectAnswer(answer: Answer, what: string, status: number, code?: number): void {
  if (answer.status === status && (code === undefined || errorCode(answer) === code)) return
  const wanted = code === undefined ? `${status}` : `${status} code ${code}`
  throw new Error(`pre-check failed: ${what}: expected ${wanted}, got ${answer.status} ${answer.body.slice(0, 300)}`)
}

/**
 * Before anything is measured, proves the load generator's requests mean what they should: a
 * valid signed request is accepted, one with one character of its signature changed is refused
 * (401 code 32), the very same request sent twice is refused the second time (401 code 32, the
 * nonce), and each shape's request answers 200. Returns the credentials with the app's bearer
 * token (from POST /oauth2/token). Throws on the first surprise.
 */
export async function precheck(target: Target, creds: BenchCredentials): Promise<BenchCredentials & { bearerToken: string }> {
  const connection = new Connection(target.host, target.port)
  try {
    const valid = await connection.request(buildRequest('verify', target, creds))
    expectAnswer(valid, 'a valid signed request', 200)
    if (!(JSON.parse(valid.body) as { screen_name?: string }).screen_name) throw new Error(`pre-check failed: no screen_name in ${valid.body}`)

    const forged = toHeader(tampered(signParams(verifySignInput(target, creds))))
    expectAnswer(await connection.request(verifyRequest(target, forged)), 'a tampered signature', 401, 32)

    const once = verifyRequest(target, toHeader(signParams(verifySignInput(target, creds))))
    expectAnswer(await connection.request(once), 'a request sent for the first time', 200)
    expectAnswer(await connection.request(once), 'the same request replayed (nonce)', 401, 32)

    const token = await connection.request(buildRequest('token', target, creds))
    expectAnswer(token, 'POST /oauth2/token', 200)
    const bearerToken = (JSON.parse(token.body) as { access_token?: string }).access_token
    if (!bearerToken) throw new Error(`pre-check failed: no access_token in ${token.body}`)
    const withBearer = { ...creds, bearerToken }
    const again = await connection.request(buildRequest('token', target, creds))
    expectAnswer(again, 'POST /oauth2/token again', 200)
    if ((JSON.parse(again.body) as { access_token?: string }).access_token !== bearerToken) {
      throw new Error('pre-check failed: POST /oauth2/token did not return the existing token')
    }

    expectAnswer(await connection.request(buildRequest('bearer', target, withBearer)), 'a Bearer call', 200)
    const checked = await connection.request(buildRequest('checkRequest', target, creds))
    expectAnswer(checked, 'POST /latchkey/check-request', 200)
    if (!checked.body.includes('"valid":true')) throw new Error(`pre-check failed: the check answered ${checked.body}`)
    const requestToken = await connection.request(buildRequest('requestToken', target, creds))
    expectAnswer(requestToken, 'POST /oauth/request_token', 200)
    if (!requestToken.body.includes('oauth_callback_confirmed=true')) throw new Error(`pre-check failed: request_token answered ${requestToken.body}`)
    return creds.oauth2 ? { ...withBearer, oauth2: await userTokens(connection, target, creds.oauth2) } : withBearer
  } finally {
    connection.close()
  }
}

/**
 * OAuth 2.0 user context (shapes 7): every code exchanged for tokens, the first grant's access
 * token answering /2/users/me and its refresh token refreshing (the rest head the refresh chains).
 */
async function userTokens(connection: Connection, target: Target, oauth2: OAuth2Credentials): Promise<OAuth2Credentials> {
  const host = `${target.host}:${target.port}`
  const tokens: Array<{ access_token: string; refresh_token: string }> = []
  for (const code of oauth2.codes) {
    const headers = { host, 'x-forwarded-proto': 'https', authorization: clientBasic(oauth2), 'content-type': 'application/x-www-form-urlencoded' }
    const answer = await connection.request(rawRequest('POST', '/2/oauth2/token', headers, codeExchangeBody(code)))
    expectAnswer(answer, 'POST /2/oauth2/token, authorization_code', 200)
    tokens.push(JSON.parse(answer.body) as { access_token: string; refresh_token: string })
  }
  const [first, ...rest] = tokens
  if (!first) throw new Error('pre-check failed: no code to exchange')
  const me = await connection.request(rawRequest('GET', '/2/users/me', { host, 'x-forwarded-proto': 'https', authorization: `Bearer ${first.access_token}` }))
  expectAnswer(me, 'GET /2/users/me with a user token', 200)
  const refreshed = await connection.request(refreshRequest(target, oauth2, first.refresh_token))
  expectAnswer(refreshed, 'POST /2/oauth2/token, refresh_token', 200)
  const accessToken = (JSON.parse(refreshed.body) as { access_token: string }).access_token
  return { ...oauth2, codes: [], accessToken, refreshTokens: rest.map((t) => t.refresh_token) }
}

/** A production log line is one JSON object (not the pretty development logger). */
export function checkJsonLogs(logText: string): void {
  const line = logText.split('\n').find((l) => l.startsWith('{'))
  if (!line) throw new Error('pre-check failed: the server wrote no JSON log line (is it in production mode?)')
  const parsed = JSON.parse(line) as { level?: unknown }
  if (typeof parsed.level !== 'number') throw new Error(`pre-check failed: not a pino JSON line: ${line}`)
}
