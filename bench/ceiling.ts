// The ceiling: a bare node:http server answering a constant small JSON body, the shape of what
// verify_credentials answers. `node bench/ceiling.ts` (or with tsx) prints "listening on URL".
import { createServer } from 'node:http'

const body = JSON.stringify({ id: 1234567890123, id_str: '1234567890123', screen_name: 'bench', name: 'Bench' })
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(body)),
  'cache-control': 'no-store',
}

const server = createServer((request, response) => {
  // Read the request to its end, as any server must, then answer.
  request.resume()
  request.on('end', () => {
    response.writeHead(200, headers)
    response.end(body)
  })
})
server.keepAliveTimeout = 5_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
