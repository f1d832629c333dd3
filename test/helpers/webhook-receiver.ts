import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RevocationEvent } from '../../src/domain/revocations/events.ts'

export interface Delivery {
  body: string
  headers: IncomingHttpHeaders
  event: RevocationEvent
}

/**
 * A webhook receiver on a free loopback port, as a resource server writes one: it answers X's CRC
 * challenge with its secret (computed here with node:crypto, not with Latchkey's code) and keeps
 * every POST it got, answering `status` (200 unless the test says otherwise).
 */
export interface WebhookReceiver {
  url: string
  /** The secret Latchkey showed at registration: the receiver answers the CRC with it. */
  secret: string | undefined
  /** What a CRC challenge gets: the right token, a wrong one, or `status` with a page. */
  crc: 'right' | 'wrong' | 'page'
  /** What a POST gets; 0: no answer at all (the request is held until the connection dies). */
  status: number
  /** Every POST, in the order it arrived (failed attempts included). */
  posts: Delivery[]
  /** The POSTs answered 2xx. */
  taken(): Delivery[]
  close(): Promise<void>
}

/** sha256=base64(HMAC-SHA256(secret, text)): X's CRC response token and delivery signature. */
export const hmacOf = (secret: string, text: string) => `sha256=${createHmac('sha256', secret).update(text, 'utf8').digest('base64')}`

export async function startWebhookReceiver(path = '/hooks/latchkey'): Promise<WebhookReceiver> {
  const accepted = new WeakSet<Delivery>()
  const receiver: WebhookReceiver = {
    url: '',
    secret: undefined,
    crc: 'right',
    status: 200,
    posts: [],
    taken: () => receiver.posts.filter((post) => accepted.has(post)),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://receiver')
    if (request.method === 'GET') {
      const token = url.searchParams.get('crc_token') ?? ''
      if (receiver.crc === 'page') return void response.writeHead(receiver.status, { 'content-type': 'text/html' }).end('<h1>not here</h1>')
      const secret = receiver.crc === 'right' ? (receiver.secret ?? '') : 'another secret'
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ response_token: hmacOf(secret, token) }))
    }
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const delivery = { body, headers: request.headers, event: JSON.parse(body) as RevocationEvent }
      receiver.posts.push(delivery)
      const status = receiver.status
      if (status === 0) return
      if (status >= 200 && status <= 299) accepted.add(delivery)
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'down for now')
    })
  })
  server.keepAliveTimeout = 100
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`
  return receiver
}
