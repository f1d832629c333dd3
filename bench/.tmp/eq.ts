import { fastSigner, signParams, toHeader } from '../sign.ts'
const input = { method: 'POST', baseUri: 'https://127.0.0.1:123/oauth/request_token', consumer: { key: 'ck', secret: 'c s!' }, token: { key: 'tk', secret: 'ts*' }, oauth: [['oauth_callback', 'http://x/?a=b&c']] as Array<[string,string]>, params: [['b', 'x y'], ['a-b', '1'], ['a', '2']] as Array<[string,string]> }
const a = fastSigner(input)('n0nce', 1700000000)
const b = toHeader(signParams({ ...input, nonce: 'n0nce', timestamp: 1700000000 }))
console.log(a === b, a, b)
