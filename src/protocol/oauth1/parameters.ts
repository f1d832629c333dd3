import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'

/** The request's parameters: the protocol ones by name, and the list that goes into the base string. */
export interface CollectedParameters {
  /** Every `oauth_*` parameter once, `oauth_signature` included. */
  protocol: Map<string, string>
  /** RFC 5849 §3.4.1.3.1 list minus `oauth_signature`, `oauth_*` once each, other repeats kept. */
  signed: Array<[string, string]>
}

/**
 * RFC 5849 §3.4.1.3.1 sources: header (realm already dropped), query, form body. An `oauth_*` name in
 * several sources with one value counts once; another value, or twice in one source, throws 215.
 * Non-oauth header parameters are signed as §3.4.1.3.1 says (Twitter drops them; no client sends any).
 */
export function collectParameters(sources: {
  header: Array<[string, string]> | undefined
  query: Array<[string, string]>
  body: Array<[string, string]>
}): CollectedParameters {
  // RFC 5849 §3.5 wants one location only, but twitter-api-v2 login() and the oauth-1.0a README send
  // oauth_token / oauth_callback in header and body, and Twitter accepts them (twitter-behaviour §3
  // item 3, §5 item 1). A conflicting value is refused rather than resolved by position.
  const protocol = new Map<string, string>()
  const signed: Array<[string, string]> = []
  const bySource: Array<[string, Array<[string, string]>]> = [
    ['header', sources.header ?? []],
    ['query', sources.query],
    ['body', sources.body],
  ]
  for (const [source, pairs] of bySource) {
    const seenHere = new Set<string>()
    for (const pair of pairs) {
      const [name, value] = pair
      if (!name.startsWith('oauth_')) {
        signed.push(pair)
        continue
      }
      if (seenHere.has(name)) repeated(name, source)
      seenHere.add(name)
      const earlier = protocol.get(name)
      if (earlier === undefined) {
        protocol.set(name, value)
        if (name !== 'oauth_signature') signed.push(pair)
      } else if (earlier !== value) {
        throw new ServiceError(E.badAuthenticationData, { detail: `${name} differs between sources` })
      }
    }
  }
  return { protocol, signed }
}

function repeated(name: string, source: string): never {
  throw new ServiceError(E.badAuthenticationData, { detail: `${name} repeated in the ${source}` })
}
