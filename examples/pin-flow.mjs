// The PIN (oob) flow of OAuth 1.0a, three-legged, with the npm `oauth` client library (a dev
// dependency of this repository):
//   node examples/pin-flow.mjs http://127.0.0.1:8080 <consumer key> <consumer secret>
// It gets a request token, prints the page to open, reads the PIN you are shown there, exchanges it
// for an access token and calls verify_credentials with it. The front door at / shows this command
// with the demo app's key and secret filled in.
import { createInterface } from 'node:readline/promises'
import { OAuth } from 'oauth'

const [base, key, secret] = process.argv.slice(2)
if (!base || !key || !secret) {
  console.error('usage: node examples/pin-flow.mjs <base url> <consumer key> <consumer secret>')
  process.exit(2)
}
const client = new OAuth(`${base}/oauth/request_token`, `${base}/oauth/access_token`, key, secret, '1.0A', 'oob', 'HMAC-SHA1')
const call = (method, ...args) =>
  new Promise((resolve, reject) => client[method](...args, (error, ...results) => (error ? reject(error) : resolve(results))))

try {
  const [requestToken, requestSecret] = await call('getOAuthRequestToken')
  console.log(`Open ${base}/oauth/authorize?oauth_token=${requestToken} in a browser, sign in and allow the app.`)
  const prompt = createInterface({ input: process.stdin, output: process.stdout })
  const pin = (await prompt.question('The PIN it shows: ')).trim()
  prompt.close()
  const [accessToken, accessSecret, account] = await call('getOAuthAccessToken', requestToken, requestSecret, pin)
  console.log(`Access token ${accessToken} and its secret ${accessSecret}, for @${account.screen_name} (user ${account.user_id}).`)
  const [body] = await call('get', `${base}/1.1/account/verify_credentials.json`, accessToken, accessSecret)
  console.log(`verify_credentials says: signed in as @${JSON.parse(body).screen_name}`)
} catch (error) {
  // A refusal (a mistyped PIN, say) as the server gave it, in one line.
  console.error(error?.statusCode ? `refused: HTTP ${error.statusCode} ${error.data}` : `failed: ${error?.message ?? JSON.stringify(error)}`)
  process.exitCode = 1
}
