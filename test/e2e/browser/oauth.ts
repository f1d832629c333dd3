import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppRecord } from '../../../src/storage/records.ts'
import { signedFetch, type HttpAnswer } from '../../helpers/oauth1-client.ts'
import type { TestServer } from '../../helpers/test-app.ts'

/** The app's side of the flow: a little web server on loopback that the browser is sent back to. */
export interface CallbackSite {
  /** The URL to register with the app: http://127.0.0.1:PORT/callback */
  registered: string
  /** Every URL the browser opened on it, in order. */
  received: URL[]
  close(): Promise<void>
}

/** The text the callback page shows, so a test can see the browser really landed there. */
export const CALLBACK_PAGE_TEXT = 'Back in the app.'

export async function startCallbackSite(): Promise<CallbackSite> {
  const received: URL[] = []
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/callback') {
      response.writeHead(404).end()
      return
    }
    received.push(new URL(request.url ?? '/', `http://${request.headers.host}`))
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(`<!doctype html><html lang="en"><title>Example app</title><main><p>${CALLBACK_PAGE_TEXT}</p></main></html>`)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    registered: `http://127.0.0.1:${port}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

const consumerOf = (app: AppRecord) => ({ key: app.consumerKey, secret: app.consumerSecret })

export interface RequestToken {
  token: string
  secret: string
}

/** Step one, for real: POST /oauth/request_token signed with the consumer only. */
export async function getRequestToken(server: TestServer, app: AppRecord, callback: string): Promise<RequestToken> {
  const answer = await signedFetch({ consumer: consumerOf(app), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: callback } })
  assert.equal(answer.status, 200, `request_token: ${answer.text}`)
  assert.equal(answer.form.oauth_callback_confirmed, 'true')
  return { token: answer.form.oauth_token as string, secret: answer.form.oauth_token_secret as string }
}

/** Step three, for real: POST /oauth/access_token signed with the request token and the verifier. */
export function exchange(server: TestServer, app: AppRecord, requestToken: RequestToken, verifier: string): Promise<HttpAnswer> {
  return signedFetch({
    consumer: consumerOf(app),
    token: { key: requestToken.token, secret: requestToken.secret },
    url: `${server.url}/oauth/access_token`,
    oauth: { oauth_verifier: verifier },
  })
}

export interface AccessToken {
  token: string
  secret: string
  userId: string
  screenName: string
}

/** Exchanges the verifier and proves the access token works: verify_credentials names the person. */
export async function exchangeAndVerify(
  server: TestServer,
  app: AppRecord,
  requestToken: RequestToken,
  verifier: string,
): Promise<AccessToken> {
  const answer = await exchange(server, app, requestToken, verifier)
  assert.equal(answer.status, 200, `access_token: ${answer.text}`)
  const access: AccessToken = {
    token: answer.form.oauth_token as string,
    secret: answer.form.oauth_token_secret as string,
    userId: answer.form.user_id as string,
    screenName: answer.form.screen_name as string,
  }
  assert.ok(access.token.startsWith(`${access.userId}-`), 'the access token has the form <user_id>-<random>')
  const me = await signedFetch({
    consumer: consumerOf(app),
    token: { key: access.token, secret: access.secret },
    method: 'GET',
    url: `${server.url}/1.1/account/verify_credentials.json`,
  })
  assert.equal(me.status, 200, `verify_credentials: ${me.text}`)
  assert.equal(me.json.screen_name, access.screenName)
  assert.equal(me.json.id_str, access.userId)
  return access
}
