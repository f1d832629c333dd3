import { Connection, type Answer } from './http-client.ts'
import { buildRequest, verifyRequest, verifySignInput, type BenchCredentials, type Target } from './shapes.ts'
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
    const requestToken = await connection.request(buildRequest('requestToken', target, creds))
    expectAnswer(requestToken, 'POST /oauth/request_token', 200)
    if (!requestToken.body.includes('oauth_callback_confirmed=true')) throw new Error(`pre-check failed: request_token answered ${requestToken.body}`)
    return withBearer
  } finally {
    connection.close()
  }
}

/** A production log line is one JSON object (not the pretty development logger). */
export function checkJsonLogs(logText: string): void {
  const line = logText.split('\n').find((l) => l.startsWith('{'))
  if (!line) throw new Error('pre-check failed: the server wrote no JSON log line (is it in production mode?)')
  const parsed = JSON.parse(line) as { level?: unknown }
  if (typeof parsed.level !== 'number') throw new Error(`pre-check failed: not a pino JSON line: ${line}`)
}
