/** How long OAuth 2.0 user-context credentials live (twitter-behaviour §9; docs/api.md). */

/** An authorization code, as on X. */
export const CODE_TTL_MS = 30_000
/** An access token: two hours, as on X (`expires_in: 7200`). */
export const ACCESS_TOKEN_TTL_MS = 7_200_000
/** A refresh token unused this long ends (X does not say; six months, as long-lived as X's appear). */
export const REFRESH_TOKEN_TTL_MS = 180 * 86_400_000
