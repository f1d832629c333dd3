import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { percentDecode } from '../oauth1/percent-encode.ts'

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

function malformed(why: string): never {
  throw new ServiceError(E.unableToVerifyCredentials, { detail: `Basic credentials: ${why}` })
}

// RFC 6749 §2.3.1 says each half is form-encoded; clients that skip it still work, since real keys
// are alphanumeric. A half whose escapes are malformed is kept raw (some clients leave a `%` in a
// secret unencoded), `+` included.
function formDecodeOrRaw(half: string): string {
  try {
    return percentDecode(half, { plusAsSpace: true })
  } catch {
    return half
  }
}

/**
 * Reads client credentials from `Authorization: Basic …` (RFC 7617 §2, RFC 6749 §2.3.1): base64
 * (padded), UTF-8, split at the first `:`, each half form-decoded. Undefined when there is no header
 * or the scheme is not Basic; malformed (bad base64, no colon, empty client id) throws 403/99.
 */
export function parseBasicCredentials(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  if (header === undefined) return undefined
  const text = header.trim()
  const schemeEnd = text.search(/\s/)
  const scheme = schemeEnd === -1 ? text : text.slice(0, schemeEnd)
  if (scheme.toLowerCase() !== 'basic') return undefined
  const token = schemeEnd === -1 ? '' : text.slice(schemeEnd).trim()
  if (token.length % 4 !== 0 || !BASE64.test(token)) malformed('not base64')
  let decoded: string
  try {
    decoded = utf8.decode(Buffer.from(token, 'base64'))
  } catch {
    malformed('not UTF-8')
  }
  const colon = decoded.indexOf(':')
  if (colon === -1) malformed('no colon')
  const clientId = formDecodeOrRaw(decoded.slice(0, colon))
  if (clientId === '') malformed('empty client id')
  return { clientId, clientSecret: formDecodeOrRaw(decoded.slice(colon + 1)) }
}
