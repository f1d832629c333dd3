// What the three examples' tests do, in plain fetch: an OAuth 2.0 authorization code with PKCE,
// the person's consent given by the test kit, the code exchanged, /2/users/me called. A real test
// suite drives its own client here instead.
import { createHash, randomBytes } from 'node:crypto'

export const REDIRECT_URI = 'http://127.0.0.1:8000/callback'

/** The authorize request a client would send the browser to, with its verifier. */
export function authorizeRequest(clientId) {
  const verifier = randomBytes(32).toString('base64url')
  const query = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'tweet.read users.read offline.access',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }
  return { query, verifier }
}

/** The code of the redirect exchanged for tokens at /2/oauth2/token. */
export async function exchange(url, clientId, location, verifier) {
  const code = new URL(location).searchParams.get('code')
  const answer = await fetch(`${url}/2/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: clientId }),
  })
  return answer.json()
}

/** GET /2/users/me with a user token: its status and body. */
export async function me(url, accessToken) {
  const answer = await fetch(`${url}/2/users/me`, { headers: { authorization: `Bearer ${accessToken}` } })
  return { status: answer.status, body: await answer.json() }
}
