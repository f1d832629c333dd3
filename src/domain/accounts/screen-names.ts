/**
 * A screen name made from an upstream claim (a preferred username, an e-mail address, a name) so
 * that it obeys X's rule, `^[A-Za-z0-9_]{1,15}$`: an address's local part only, accents dropped
 * (é → e), every other character not allowed becomes `_`, runs of `_` and those at the ends dropped,
 * cut to 15. Undefined when nothing usable is left (no letter or digit).
 */
export function deriveScreenName(claim: string): string | undefined {
  const local = claim.includes('@') ? claim.slice(0, claim.indexOf('@')) : claim
  const ascii = local.normalize('NFKD').replace(/\p{M}+/gu, '')
  const cleaned = ascii.replace(/[^A-Za-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/^_+|_+$/g, '')
  const name = cleaned.slice(0, 15).replace(/_+$/, '')
  return /[A-Za-z0-9]/.test(name) ? name : undefined
}
