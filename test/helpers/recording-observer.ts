import type { DomainObserver } from '../../src/domain/observe.ts'

/**
 * An observer that keeps what the domain told it of tokens (issued, invalidated) and of bearer
 * checks as `issued:<kind>`, `invalidated:<kind>:<reason>` and `bearer:<result>`, in order: what
 * the metrics would count. The other outcomes are not recorded.
 */
export function recordingObserver(): DomainObserver & { told: string[] } {
  const told: string[] = []
  return {
    told,
    tokenIssued: (kind) => void told.push(`issued:${kind}`),
    tokenInvalidated: (kind, reason) => void told.push(`invalidated:${kind}:${reason}`),
    oauth1Verification: () => {},
    bearerVerification: (result) => void told.push(`bearer:${result}`),
    clockSkew: () => {},
    rateLimited: () => {},
    signIn: () => {},
  }
}
