import type { DomainObserver } from '../../src/domain/observe.ts'

/**
 * An observer that keeps what the domain told it of tokens (issued, invalidated) as
 * `issued:<kind>` and `invalidated:<kind>:<reason>`, in order: what the metrics would count.
 * The other outcomes are not recorded.
 */
export function recordingObserver(): DomainObserver & { told: string[] } {
  const told: string[] = []
  return {
    told,
    tokenIssued: (kind) => void told.push(`issued:${kind}`),
    tokenInvalidated: (kind, reason) => void told.push(`invalidated:${kind}:${reason}`),
    oauth1Verification: () => {},
    bearerVerification: () => {},
    clockSkew: () => {},
    rateLimited: () => {},
    signIn: () => {},
  }
}
