import { parseFormEncoded } from '../protocol/form.ts'
import { isFormEncoded, type SignedRequestInput } from './oauth1/signed-request.ts'

/** The query and, for a form body, the body parameters of a request, in that order, repeats kept. */
export function formParams(input: Pick<SignedRequestInput, 'query' | 'contentType' | 'body'>): Array<[string, string]> {
  const body = isFormEncoded(input.contentType) && input.body !== undefined ? parseFormEncoded(input.body.toString()) : []
  return [...parseFormEncoded(input.query), ...body]
}

/** The first value of a parameter, or undefined. */
export function param(pairs: Array<[string, string]>, name: string): string | undefined {
  return pairs.find(([n]) => n === name)?.[1]
}
