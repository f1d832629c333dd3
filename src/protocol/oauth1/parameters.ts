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
  // The header first: a name already in the map can only have come from the header itself. One
  // map operation a name, since a set that does not grow the map found a repeat.
  for (const pair of sources.header ?? []) {
    const name = pair[0]
    if (!name.startsWith('oauth_')) {
      signed.push(pair)
      continue
    }
    const size = protocol.size
    protocol.set(name, pair[1])
    if (protocol.size === size) repeated(name, 'header')
    if (name !== 'oauth_signature') signed.push(pair)
  }
  // Query and body: the source each oauth_ name was last seen in, for names seen there; a name
  // missing from it but in the map came from the header.
  let lastSource: Map<string, number> | undefined
  for (let source = 1; source < 3; source++) {
    for (const pair of source === 1 ? sources.query : sources.body) {
      const name = pair[0]
      if (!name.startsWith('oauth_')) {
        signed.push(pair)
        continue
      }
      lastSource ??= new Map()
      const seenIn = lastSource.get(name) ?? (protocol.has(name) ? 0 : undefined)
      if (seenIn === source) repeated(name, source === 1 ? 'query' : 'body')
      lastSource.set(name, source)
      if (seenIn === undefined) {
        protocol.set(name, pair[1])
        if (name !== 'oauth_signature') signed.push(pair)
      } else if (protocol.get(name) !== pair[1]) {
        throw new ServiceError(E.badAuthenticationData, { detail: `${name} differs between sources` })
      }
    }
  }
  return { protocol, signed }
}

function repeated(name: string, source: string): never {
  throw new ServiceError(E.badAuthenticationData, { detail: `${name} repeated in the ${source}` })
}
