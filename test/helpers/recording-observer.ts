import type { DomainObserver } from '../../src/domain/observe.ts'

/** An observer that hears everything and keeps nothing, but for what `overrides` do. */
export function quietObserver(overrides: Partial<DomainObserver> = {}): DomainObserver {
  return {
    oauth1Verification: () => {},
    bearerVerification: () => {},
    clockSkew: () => {},
    tokenIssued: () => {},
    tokenInvalidated: () => {},
    rateLimited: () => {},
    signIn: () => {},
    signatureFailureLost: () => {},
    validityCacheLookup: () => {},
    ...overrides,
  }
}

/**
 * An observer that keeps what the domain told it of tokens (issued, invalidated), of bearer checks
 * and of lost signature failures as `issued:<kind>`, `invalidated:<kind>:<reason>`, `bearer:<result>`
 * and `lost:<reason>`, in order: what the metrics would count. The other outcomes are not recorded.
 */
export function recordingObserver(): DomainObserver & { told: string[] } {
  const told: string[] = []
  return {
    told,
    ...quietObserver({
      tokenIssued: (kind) => void told.push(`issued:${kind}`),
      tokenInvalidated: (kind, reason) => void told.push(`invalidated:${kind}:${reason}`),
      bearerVerification: (result) => void told.push(`bearer:${result}`),
      signatureFailureLost: (reason) => void told.push(`lost:${reason}`),
    }),
  }
}
