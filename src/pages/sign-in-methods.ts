import type { ExternalSignInKind } from '../storage/account-types.ts'

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
