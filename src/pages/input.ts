import type { FastifyRequest } from 'fastify'
import { firstValues, formFields } from './form-fields.ts'

// twitter-api-v2 sends force_login=true/false; `1` is accepted too.
const isTrue = (value: string | undefined): boolean => value !== undefined && /^(true|1)$/i.test(value)

export interface PageQuery {
  oauthToken: string | undefined
  forceLogin: boolean
  /** Prefills the username; an `oauth_callback` here is ignored (service-spec §4.2). */
  screenName: string
}

/** The first value of each query parameter; malformed escapes throw 215 (a 400 page). */
function queryValues(request: FastifyRequest): Map<string, string> {
  const url = request.raw.url ?? ''
  const q = url.indexOf('?')
  return firstValues(q === -1 ? '' : url.slice(q + 1))
}

/** One query parameter's first value. */
export const queryValue = (request: FastifyRequest, name: string): string | undefined => queryValues(request).get(name)

/** The query of GET /oauth/authorize|authenticate; malformed escapes throw 215 (a 400 page). */
export function readQuery(request: FastifyRequest): PageQuery {
  const values = queryValues(request)
  return {
    oauthToken: values.get('oauth_token') || undefined,
    forceLogin: isTrue(values.get('force_login')),
    screenName: (values.get('screen_name') ?? '').slice(0, 64),
  }
}

export type FormAction = 'allow' | 'cancel' | 'switch'

export interface PageForm {
  /** Every field, the first value of each. */
  fields: ReadonlyMap<string, string>
  csrfToken: string | undefined
  oauthToken: string | undefined
  action: FormAction | undefined
  /** Present only when the form had the sign-in fields. */
  credentials: { username: string; password: string } | undefined
  forceLogin: boolean
}

const ACTIONS: readonly string[] = ['allow', 'cancel', 'switch']

/** The form body of POST /oauth/authorize|authenticate (raw Buffer, form-encoded). */
export function readForm(request: FastifyRequest): PageForm {
  const values = formFields(request)
  const action = values.get('action')
  const username = values.get('username')
  const password = values.get('password')
  return {
    fields: values,
    csrfToken: values.get('csrf_token') || undefined,
    oauthToken: values.get('oauth_token') || undefined,
    action: action !== undefined && ACTIONS.includes(action) ? (action as FormAction) : undefined,
    credentials:
      username !== undefined || password !== undefined ? { username: username ?? '', password: password ?? '' } : undefined,
    forceLogin: isTrue(values.get('force_login')),
  }
}
