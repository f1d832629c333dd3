import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { bodyParams, bodyText, type RequestInput } from '../request.ts'

const isJson = (contentType: string | undefined) => contentType !== undefined && /^\s*application\/json\b/i.test(contentType)

/**
 * The parameters of a token or revocation request: the form body (RFC 6749 §4.1.3), or a JSON
 * object of strings, which twitter-api-v2 sends. Never the query: credentials stay out of URLs.
 */
export function tokenRequestParams(input: Pick<RequestInput, 'contentType' | 'body'>): Array<[string, string]> {
  if (!isJson(input.contentType)) return bodyParams(input)
  let parsed: unknown
  try {
    parsed = JSON.parse(bodyText(input.body))
  } catch {
    throw new ServiceError(E.oauth2InvalidRequest, { message: 'The request body is not valid JSON.', detail: 'bad JSON body' })
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ServiceError(E.oauth2InvalidRequest, { message: 'The request body must be a JSON object.', detail: 'JSON body not an object' })
  }
  return Object.entries(parsed).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value] as [string, string]] : []))
}
