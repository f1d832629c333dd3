// A small API protected by Latchkey, in Node.js with the package's remote verifier (no database, no
// keyring: a URL and the credentials of an app registered as a resource server). Run it with:
//   LATCHKEY_URL=https://auth.example.org LATCHKEY_CLIENT_ID=... LATCHKEY_CLIENT_SECRET=... \
//   PUBLIC_URL=https://api.example.org PORT=8000 node api.mjs
import { Buffer } from 'node:buffer'
import { createServer } from 'node:http'
import { createRemoteVerifier, RemoteCheckError } from 'latchkey/remote'

const verifier = createRemoteVerifier({
  url: process.env.LATCHKEY_URL,
  clientId: process.env.LATCHKEY_CLIENT_ID,
  clientSecret: process.env.LATCHKEY_CLIENT_SECRET,
})

const server = createServer(async (request, response) => {
  const chunks = []
  for await (const chunk of request) chunks.push(chunk)
  const reply = (status, body, headers = {}) =>
    response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body))
  try {
    // The URL as the client addressed it: this API's public origin and the path with its query.
    const url = `${process.env.PUBLIC_URL}${request.url}`
    const caller = await verifier.verify({ method: request.method, url, headers: request.headers, body: Buffer.concat(chunks) })
    reply(200, { hello: caller.screenName ?? caller.appName, caller })
  } catch (error) {
    if (error instanceof RemoteCheckError) return reply(503, { errors: [{ code: 130, message: 'Over capacity' }] })
    // A RemoteRefusal: X's answer to this caller, status, headers and body, passed on as it is.
    reply(error.status, error.body, error.headers)
  }
})

server.listen(Number(process.env.PORT ?? 8000), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`))
