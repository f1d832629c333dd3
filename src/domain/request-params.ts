import { parseFormEncoded } from '../protocol/oauth1/form.ts'
import { isFormEncoded, type SignedRequestInput } from './oauth1/signed-request.ts'

/** The query and, for a form body, the body parameters of a request, in that order, repeats kept. */
export function formParams(input: Pick<SignedRequestInput, 'query' | 'contentType' | 'body'>): Array<[string, string]> {
  return [...parseFormEncoded(input.query), ...bodyParams(input)]
}

/** The parameters of a form body only: where secrets are read from (never from the URL, RFC 6749 §2.3.1). */
export function bodyParams(input: Pick<SignedRequestInput, 'contentType' | 'body'>): Array<[string, string]> {
  return isFormEncoded(input.contentType) && input.body !== undefined ? parseFormEncoded(input.body.toString()) : []
}

/** The first value of a parameter, or undefined. */
export function param(pairs: Array<[string, string]>, name: string): string | undefined {
  return pairs.find(([n]) => n === name)?.[1]
}
