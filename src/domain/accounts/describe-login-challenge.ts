import type { DomainDeps } from '../deps.ts'
import { openLoginChallenge } from './login-challenge.ts'

/** What the platform's login page needs to know of a challenge (GET /admin/v1/login-challenges/{challenge}). */
export interface LoginChallengeView {
  app?: { id: string; name: string } | undefined
  loginHint?: string | undefined
  forceLogin: boolean
  expiresAtMs: number
  isAnswered: boolean
}

export async function describeLoginChallenge(deps: Pick<DomainDeps, 'stores' | 'clock'>, challenge: string): Promise<LoginChallengeView> {
  const record = await openLoginChallenge(deps, challenge)
  const app = record.appId ? await deps.stores.apps.findById(record.appId) : undefined
  return {
    app: app ? { id: app.id, name: app.name } : undefined,
    loginHint: record.loginHint,
    forceLogin: record.forceLogin,
    expiresAtMs: record.expiresAtMs,
    isAnswered: record.outcome !== undefined,
  }
}
