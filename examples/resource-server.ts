// A small API that accepts Latchkey's credentials, checked by the exported verifier on the same
// database (run it with the same LATCHKEY_DATABASE_URL as the service):
//   LATCHKEY_DATABASE_URL=./data/latchkey.sqlite npx tsx examples/resource-server.ts
// Outside this repository, import from 'latchkey' instead of '../src/index.ts'.
import { createServer } from 'node:http'
import { ServiceError, createVerifier, errorBody } from '../src/index.ts'

const port = Number(process.env.PORT ?? 4000)
const verifier = await createVerifier()

const server = createServer(async (request, response) => {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const send = (status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body))
  try {
    // The URL as the client used it: behind a proxy, use your public scheme and host here.
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`).href
    const caller = await verifier.verify({ method: request.method ?? 'GET', url, headers: request.headers, body: Buffer.concat(chunks) })
    send(200, { hello: caller.screenName ?? caller.appName, caller })
  } catch (error) {
    if (error instanceof ServiceError) send(error.status, errorBody(error))
    else send(503, { errors: [{ code: 130, message: 'Over capacity' }] })
  }
})

server.listen(port, '127.0.0.1', () => {
  const address = server.address()
  console.log(`resource server listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`)
})
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => server.close(() => void verifier.close().then(() => process.exit(0))))
}
