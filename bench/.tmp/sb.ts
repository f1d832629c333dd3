import { buildRequest } from '../shapes.ts'
const creds = { consumerKey: 'zuEu2BavEfkMXAPnY3eOQlBwW', consumerSecret: '7XRiGXIW6gmifTGJoiTNR1tughsIqoA4n0widipchp0FqOvUfv', accessToken: '892158008486279-1zpNKdgYfbB0eMOvYUO6zcDznwiUJD', accessTokenSecret: '3lIeuxty4chlJ8miYIeeSmyhDJKu0BbCHFT0TMNmp0bAk', bearerToken: 'AAAA' }
const t = { host: '127.0.0.1', port: 12345 }
for (const kind of ['verify', 'token', 'bearer', 'requestToken'] as const) {
  for (let i = 0; i < 20000; i++) buildRequest(kind, t, creds)
  const n = 200000; const s = performance.now()
  for (let i = 0; i < n; i++) buildRequest(kind, t, creds)
  console.log(kind, ((performance.now() - s) * 1000 / n).toFixed(2), 'µs')
}
