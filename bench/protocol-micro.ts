// `npx tsx bench/protocol-micro.ts [rounds] [other src dir]`: the pure parsing and signature
// functions of the OAuth verify path (src/protocol, parseSignedRequest), timed in-process on fixed
// inputs, per call: the median of `rounds` rounds (lowest–highest beside it), in CPU time of this
// process (process.cpuUsage), so that time spent descheduled on a shared machine does not count.
// With another src dir (e.g. `git archive <commit> src | tar -x -C /tmp/base`), both are loaded and
// their rounds interleaved, A B A B…, so that both see the same load: the ratio is new ÷ other.
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { fastSigner } from './sign.ts'

const ROUNDS = Number(process.argv[2] ?? 21)
const OWN = resolve(new URL('../src', import.meta.url).pathname)
const OTHER = process.argv[3] === undefined ? undefined : resolve(process.argv[3])

type Pairs = Array<[string, string]>
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (...args: any[]) => any
interface Api {
  parseSignedRequest: Fn
  parseOAuthHeader: Fn
  parseFormEncoded: Fn
  percentDecode: Fn
  percentEncode: Fn
  buildBaseString: Fn
  normalizeParameters: Fn
  verifySignature: Fn
  constantTimeEqual: Fn
  canonicalBearerToken: Fn
  parseBearerHeader: Fn
}
async function loadApi(src: string): Promise<Api> {
  const load = (path: string) => import(pathToFileURL(`${src}/${path}`).href)
  // Trees older than issue 12 name the parser's file signed-request.ts.
  const parser = await load('domain/oauth1/parse-signed-request.ts').catch(() => load('domain/oauth1/signed-request.ts'))
  return {
    ...parser,
    ...(await load('protocol/oauth1/auth-header.ts')),
    ...(await load('protocol/oauth1/form.ts')),
    ...(await load('protocol/oauth1/percent-encode.ts')),
    ...(await load('protocol/oauth1/signature.ts')),
    ...(await load('protocol/secrets.ts')),
    ...(await load('protocol/oauth2/bearer-token.ts')),
  } as Api
}
const apis = [await loadApi(OWN), ...(OTHER === undefined ? [] : [await loadApi(OTHER)])]

/** CPU µs per call of `run` over `inputs` (cycled), one round. */
function round<T>(inputs: readonly T[], run: (input: T) => unknown, calls: number): number {
  let sink = 0
  const started = process.cpuUsage()
  for (let i = 0; i < calls; i++) if (run(inputs[i % inputs.length]!) === sink) sink++
  const used = process.cpuUsage(started)
  return (used.user + used.system) / calls
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const show = (us: number) => (us < 1 ? `${(us * 1000).toFixed(0)} ns` : `${us.toFixed(2)} µs`)

/** Times `run(api)` for every loaded src, rounds interleaved, and prints medians (and the ratio). */
function report<T>(name: string, inputs: readonly T[], run: (api: Api) => (input: T) => unknown): void {
  const runs = apis.map(run)
  // About 20 ms a round: enough for cpuUsage's microsecond resolution.
  runs.forEach((f) => round(inputs, f, 2000))
  const perCall = Math.max(...runs.map((f) => round(inputs, f, 2000) / 2000))
  const calls = Math.max(200, Math.min(1_000_000, Math.round(20_000 / Math.max(perCall * 2000, 1e-3))))
  const samples = runs.map(() => [] as number[])
  for (let r = 0; r < ROUNDS; r++) runs.forEach((f, k) => samples[k]!.push(round(inputs, f, calls)))
  const cells = samples.map((xs) => `${show(median(xs)).padStart(9)} (${show(Math.min(...xs))}–${show(Math.max(...xs))})`)
  const ratio = samples.length === 2 ? `  ×${(median(samples[0]!) / median(samples[1]!)).toFixed(2)}` : ''
  console.log(`${cells.join('  |')}${ratio}  ${name}`)
}

const consumer = { key: 'xvz1evFS4wEEPTGEFPHBog', secret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw' }
const token = { key: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb', secret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE' }
const baseUri = 'https://127.0.0.1:8443/1.1/account/verify_credentials.json'
const sign = fastSigner({ method: 'GET', baseUri, consumer, token })
const headers = Array.from({ length: 1000 }, () => sign())
const input = (authorization: string) => ({
  method: 'GET', scheme: 'https', host: '127.0.0.1:8443', path: '/1.1/account/verify_credentials.json', query: '',
  authorization, contentType: undefined, body: undefined, isSecure: true,
})
const plainInputs = headers.map(input)

// A POST with a query and a form body that need encoding (spaces, '+', non-ASCII, reserved characters).
const params: Pairs = [['include_entities', 'true'], ['status', 'Hello Ladies + Gentlemen, a signed OAuth request! é😀'], ['a', '1'], ['a', '']]
const postSign = fastSigner({ method: 'POST', baseUri: 'https://127.0.0.1:8443/1.1/statuses/update.json', consumer, token, params })
const postInputs = Array.from({ length: 1000 }, () => ({
  ...input(postSign()), method: 'POST', path: '/1.1/statuses/update.json', query: 'include_entities=true',
  contentType: 'application/x-www-form-urlencoded',
  body: 'status=Hello+Ladies+%2B+Gentlemen%2C+a+signed+OAuth+request%21+%C3%A9%F0%9F%98%80&a=1&a',
}))

const own = apis[0]!
const parsed = own.parseSignedRequest(plainInputs[0]!)
const signed = (own.parseOAuthHeader(headers[0]) as Pairs).filter(([name]) => name !== 'oauth_signature')
const bearer = `${'A'.repeat(21)}abcdefghijklmnop%2Bqrstuvwx%2F123456789%3D${'x'.repeat(60)}`

console.log(`${ROUNDS} rounds, CPU time per call, median (lowest–highest): ${OWN}${OTHER ? ` | ${OTHER}` : ''}`)
report('parseSignedRequest, GET, header only', plainInputs, (a) => (i) => a.parseSignedRequest(i))
report('parseSignedRequest, POST, query + form body needing encoding', postInputs, (a) => (i) => a.parseSignedRequest(i))
report('parseOAuthHeader', headers, (a) => (h) => a.parseOAuthHeader(h))
report('parseFormEncoded (the POST body)', [postInputs[0]!.body], (a) => (b) => a.parseFormEncoded(b))
report('normalizeParameters (the GET signed list)', [signed], (a) => (p) => a.normalizeParameters(p))
report('buildBaseString (the GET)', [signed], (a) => (p) => a.buildBaseString('GET', baseUri, p))
report('percentEncode, unreserved value', ['kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg'], (a) => (v) => a.percentEncode(v))
report('percentEncode, value needing escapes', ['Hello Ladies + Gentlemen, é'], (a) => (v) => a.percentEncode(v))
report('percentEncode, base string URI', [baseUri], (a) => (v) => a.percentEncode(v))
report('percentDecode, no escapes', ['kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg'], (a) => (v) => a.percentDecode(v))
report('percentDecode, signature with escapes', ['hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D'], (a) => (v) => a.percentDecode(v))
report('verifySignature HMAC-SHA1', [parsed], (a) => (p) => a.verifySignature('HMAC-SHA1', p.baseString, consumer.secret, token.secret, p.signature))
report('constantTimeEqual (secrets)', [parsed.signature as string], (a) => (s) => a.constantTimeEqual(s, s))
report('parseBearerHeader', [`Bearer ${bearer}`], (a) => (h) => a.parseBearerHeader(h))
report('canonicalBearerToken, as issued (with %)', [bearer], (a) => (t) => a.canonicalBearerToken(t))
report('canonicalBearerToken, no %', ['A'.repeat(116)], (a) => (t) => a.canonicalBearerToken(t))
