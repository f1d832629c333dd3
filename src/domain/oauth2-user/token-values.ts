import { randomAlphanumeric } from '../../protocol/secrets.ts'

/**
 * The values of OAuth 2.0 user access and refresh tokens: 86 alphanumerics. An app-only bearer token
 * always holds `%3D` (or its decoded `=`: protocol/secrets.ts newBearerTokenValue), so the two never
 * look alike, and a presented bearer token is looked up in its own table only: an app-only token on
 * the hot path costs no lookup of user tokens.
 */
const USER_TOKEN = /^[A-Za-z0-9]{86}$/

export const newUserTokenValue = (): string => randomAlphanumeric(86)

export const isUserTokenValue = (value: string): boolean => USER_TOKEN.test(value)
