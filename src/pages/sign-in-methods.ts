import type { LinkPolicy } from '../domain/accounts/linked-sign-in.ts'
import { DELEGATED_LOGIN_PROVIDER, type ExternalSignInKind } from '../storage/account-types.ts'

/** A way to sign in other than a password, as the sign-in forms offer it (docs/accounts.md). */
export interface ExternalSignInMethod {
  kind: ExternalSignInKind
  /** The provider's id (OpenID Connect) or DELEGATED_LOGIN_PROVIDER. */
  id: string
  /** "Sign in with <label>". */
  label: string
}

/** How a person may sign in on a page: a password (unless turned off), and the other ways offered. */
export interface SignInOptions {
  password: boolean
  methods: readonly ExternalSignInMethod[]
}

/** A password, and no other way. */
export const PASSWORD_ONLY: SignInOptions = { password: true, methods: [] }

/** Where the browser goes to start a method's sign-in, to come back to `returnTo`. */
export function startPath(method: ExternalSignInMethod, returnTo: string): string {
  const base = method.kind === 'oidc' ? `/login/oidc/${method.id}` : '/login/delegated'
  return `${base}?return_to=${encodeURIComponent(returnTo)}`
}

/** Login delegation's settings (docs/accounts.md): the platform's login page, a challenge's lifetime, how a first sign-in links. */
export interface DelegationSettings {
  loginUrl: URL
  label: string
  challengeSeconds: number
  policy: LinkPolicy
}

/** The method login delegation offers on the sign-in forms. */
export const delegationMethod = (label: string): ExternalSignInMethod => ({ kind: 'delegation', id: DELEGATED_LOGIN_PROVIDER, label })

/** The one way left to sign in when a password is off and only one other method is offered: the page sends a signed-out visitor there at once. */
export const onlyMethod = (options: SignInOptions): ExternalSignInMethod | undefined =>
  !options.password && options.methods.length === 1 ? options.methods[0] : undefined
