import { z } from 'zod'
import { DELEGATED_LOGIN_PROVIDER } from '../storage/account-types.ts'
import { ConfigError } from './load.ts'

/**
 * The upstream OpenID Connect providers of `--oidc-providers` (docs/accounts.md): a JSON file
 * holding an array of them, checked at start. A wrong one stops the start with the field named,
 * never with the client secret's value.
 */
export interface OidcProviderConfig {
  id: string
  issuer: string
  clientId: string
  clientSecret: string
  displayName: string
  scopes: string
  screenNameClaim: string
  nameClaim: string
  link: { create: true } | { matchBy: 'email' | 'screen_name' }
  /** How the client secret goes to the token endpoint: HTTP Basic (OpenID Connect's default) or the body. */
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post'
}

/** Plain http is for a provider on this machine only (tests, development). */
const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/i

const claimName = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'must be a claim name')

const providerSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,40}$/, 'must be 1 to 40 letters, digits or hyphens')
      .refine((id) => id !== DELEGATED_LOGIN_PROVIDER, `must not be ${DELEGATED_LOGIN_PROVIDER}: login delegation's identities are under it`),
    issuer: z
      .string()
      .url('must be a URL')
      .refine((v) => v.startsWith('https://') || LOOPBACK.test(v), 'must be an https:// URL (http:// only on localhost)'),
    client_id: z.string().min(1, 'must not be empty').max(500),
    client_secret: z.string().min(1, 'must not be empty').max(2000),
    display_name: z.string().trim().min(1, 'must not be empty').max(60),
    scopes: z.string().regex(/(^|\s)openid(\s|$)/, 'must include openid').default('openid profile email'),
    screen_name_claim: claimName.default('preferred_username'),
    name_claim: claimName.default('name'),
    // Only a verified e-mail may link an existing person: a provider's preferred_username is not unique
    // and often chosen by its user (OpenID Connect Core §5.7), so matching it would hand accounts out.
    link: z.union([z.literal('create'), z.object({ match: z.literal('email') }).strict()]).default('create'),
    token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post']).default('client_secret_basic'),
  })
  .strict()

const fileSchema = z.array(providerSchema).superRefine((providers, context) => {
  const seen = new Set<string>()
  providers.forEach((provider, index) => {
    if (seen.has(provider.id)) context.addIssue({ code: z.ZodIssueCode.custom, path: [index, 'id'], message: 'is used twice' })
    seen.add(provider.id)
  })
})

/** The providers of a file's JSON text; a ConfigError naming the file and the field otherwise. */
export function parseOidcProviders(text: string, file: string): OidcProviderConfig[] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ConfigError(`invalid setting oidcProviders (${file}): not JSON`)
  }
  const parsed = fileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('') : 'the file'
    // The message only, never the value received: it may be the client secret.
    throw new ConfigError(`invalid setting oidcProviders (${file}): ${where} ${issue?.message ?? 'is not valid'}`)
  }
  return parsed.data.map((p) => ({
    id: p.id,
    issuer: p.issuer,
    clientId: p.client_id,
    clientSecret: p.client_secret,
    displayName: p.display_name,
    scopes: p.scopes,
    screenNameClaim: p.screen_name_claim,
    nameClaim: p.name_claim,
    link: p.link === 'create' ? { create: true } : { matchBy: p.link.match },
    tokenEndpointAuthMethod: p.token_endpoint_auth_method,
  }))
}
