import { createHmac } from 'node:crypto'
const key = 'abc&def'; const base = 'GET&https%3A%2F%2F127.0.0.1%3A12345%2F1.1%2Faccount%2Fverify_credentials.json&oauth_consumer_key%3DzuEu2BavEfkMXAPnY3eOQlBwW%26oauth_nonce%3D1234567890abcdef1234x1a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1764112233%26oauth_token%3D892158008486279-1zpNKdgYfbB0eMOvYUO6zcDznwiUJD%26oauth_version%3D1.0'
const n = 200000
for (let r = 0; r < 2; r++) { const s = performance.now(); for (let i = 0; i < n; i++) createHmac('sha1', key).update(base).digest('base64'); console.log('hmac', ((performance.now() - s) * 1000 / n).toFixed(2)) }
