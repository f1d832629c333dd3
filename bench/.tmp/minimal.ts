// A minimal node:http OAuth 1.0a verifier: credentials in memory, HMAC-SHA1, nonce set. Calibration only.
import { createServer } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import { signParams } from '../sign.ts'
const creds = JSON.parse(process.env.BENCH_CREDS!) as { consumerKey: string; consumerSecret: string; accessToken: string; accessTokenSecret: string }
const nonces = new Set<string>()
const body = JSON.stringify({ id: 1234567890123, id_str: '1234567890123', screen_name: 'bench', name: 'Bench' })
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    const p: Record<string, string> = {}
    for (const m of (req.headers.authorization ?? '').matchAll(/(\w+)="([^"]*)"/g)) p[m[1]!] = decodeURIComponent(m[2]!)
    const ok = p.oauth_consumer_key === creds.consumerKey && p.oauth_token === creds.accessToken &&
      Math.abs(Number(p.oauth_timestamp) - Date.now() / 1000) < 300 && !nonces.has(p.oauth_nonce!)
    const expected = ok ? signParams({ method: req.method!, baseUri: `https://${req.headers.host}${req.url!.split('?')[0]}`,
      consumer: { key: creds.consumerKey, secret: creds.consumerSecret }, token: { key: creds.accessToken, secret: creds.accessTokenSecret },
      nonce: p.oauth_nonce!, timestamp: Number(p.oauth_timestamp) }).at(-1)![1] : ''
    const a = Buffer.from(expected), b = Buffer.from(p.oauth_signature ?? '')
    if (ok && a.length === b.length && timingSafeEqual(a, b)) {
      nonces.add(p.oauth_nonce!)
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) })
      res.end(body)
    } else { res.writeHead(401); res.end('{}') }
  })
})
server.listen(0, '127.0.0.1', () => { const a = server.address() as { port: number }; process.stdout.write(`listening on http://127.0.0.1:${a.port}\n`) })
process.on('SIGTERM', () => server.close(() => process.exit(0)))
