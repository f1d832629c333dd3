import { randomAlphanumeric } from '../protocol/secrets.ts'
import type { AppRecord, BrowserSessionRecord, UserRecord } from '../storage/records.ts'
import { recordAudit } from './audit.ts'
import type { DomainDeps } from './deps.ts'

/**
 * Browser sessions that can be ended (issue 19). A signed-in cookie names a session row and the
 * person's session generation at sign-in. A session is live while:
 * - its person exists, is not disabled, and still has that generation (raising it — a password
 *   change, disabling, `latchkey user sign-out-everywhere` — ends every session at once);
 * - its row is not ended (sign-out, or ended from the session list);
 * - it was seen within the idle timeout and began within the absolute lifetime.
 * Both limits are checked here, on the server, on every request; the cookie's Max-Age only helps
 * the browser forget. Every instance reads the same rows, so they all agree from the next request.
 */

type Deps = Pick<DomainDeps, 'stores' | 'clock' | 'settings'>

/** The password entered this recently allows the sensitive actions (the "sudo" window). */
export const FRESH_PASSWORD_MS = 10 * 60_000
/** "Last seen" is written at most this often per session, so a page view is usually a read only. */
export const LAST_SEEN_STEP_MS = 60_000
/**
 * Open sessions a person may hold; a new one past it ends the least recently seen. Without a cap,
 * every sign-in adds a row and a line to the session list (120 sign-ins, a 121 KB page).
 */
export const MAX_OPEN_SESSIONS = 20
const USER_AGENT_MAX = 512

/** What a signed-in cookie claims: checked against the rows on every request. */
export interface SessionClaim {
  sessionId: string
  userId: string
  generation: number
}

export interface LiveSession {
  session: BrowserSessionRecord
  user: UserRecord
  claim: SessionClaim
  /** The password was entered in this session within FRESH_PASSWORD_MS. */
  isPasswordFresh: boolean
}

const generationOf = (user: UserRecord) => user.sessionGeneration ?? 0

/** Where it came from, as shown on the session list: the browser's own words, without control characters. */
function cleanUserAgent(userAgent: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  return (userAgent ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, USER_AGENT_MAX)
}

/** A new session for a person who just proved who they are (sign-in, sign-up, password change). */
export async function startBrowserSession(
  deps: Deps,
  /** `isFresh: false`: the proof was not a fresh authentication (an upstream session reused), so the session asks again before secrets. */
  input: { user: UserRecord; userAgent: string | undefined; address: string; isFresh?: boolean },
): Promise<SessionClaim> {
  const nowMs = deps.clock.nowMs()
  // The person's rows that can never be live again go now, so the table stays as small as their live sessions.
  await deps.stores.sessions.deleteDead(input.user.id, deadLimits(deps, nowMs))
  const session: BrowserSessionRecord = {
    id: randomAlphanumeric(32),
    userId: input.user.id,
    generation: generationOf(input.user),
    createdAtMs: nowMs,
    lastSeenAtMs: nowMs,
    passwordAtMs: input.isFresh === false ? 0 : nowMs,
    userAgent: cleanUserAgent(input.userAgent),
    address: input.address,
    endedAtMs: null,
  }
  await deps.stores.sessions.create(session)
  await endSessionsOverCap(deps, session, nowMs)
  return { sessionId: session.id, userId: session.userId, generation: session.generation }
}

/** Ends the person's least recently seen open sessions beyond MAX_OPEN_SESSIONS, never the new one. */
async function endSessionsOverCap(deps: Deps, kept: BrowserSessionRecord, nowMs: number): Promise<void> {
  const others = (await deps.stores.sessions.listOpen(kept.userId)).filter((session) => session.id !== kept.id)
  const overCap = others.length + 1 - MAX_OPEN_SESSIONS
  if (overCap <= 0) return
  const leastRecentFirst = others.sort((a, b) => a.lastSeenAtMs - b.lastSeenAtMs || a.createdAtMs - b.createdAtMs)
  for (const session of leastRecentFirst.slice(0, overCap)) await deps.stores.sessions.end(session.id, kept.userId, nowMs)
}

function deadLimits(deps: Deps, nowMs: number) {
  return {
    createdBeforeMs: nowMs - deps.settings.sessionLifetimeSeconds * 1000,
    seenBeforeMs: nowMs - deps.settings.sessionIdleTimeoutSeconds * 1000,
  }
}

/** Whether the row is live at nowMs under the limits (the person's generation is checked by the caller). */
function isLive(deps: Deps, session: BrowserSessionRecord, nowMs: number): boolean {
  const limits = deadLimits(deps, nowMs)
  // Live for less than the limits: at exactly 12 hours unused (or 30 days old) it has ended.
  return session.endedAtMs === null && session.createdAtMs > limits.createdBeforeMs && session.lastSeenAtMs > limits.seenBeforeMs && session.createdAtMs <= nowMs
}

/**
 * The live session a cookie names, or undefined when it has ended in any way. The generation is
 * compared first, on the person's row that every page reads anyway; only then is the session row
 * read. A use marks it seen (at most once a LAST_SEEN_STEP_MS).
 */
export async function resumeBrowserSession(deps: Deps, claim: SessionClaim): Promise<LiveSession | undefined> {
  const user = await deps.stores.users.findById(claim.userId)
  if (!user || user.isDisabled || generationOf(user) !== claim.generation) return undefined
  const session = await deps.stores.sessions.findById(claim.sessionId)
  const nowMs = deps.clock.nowMs()
  if (!session || session.userId !== user.id || session.generation !== claim.generation || !isLive(deps, session, nowMs)) return undefined
  if (nowMs - session.lastSeenAtMs >= LAST_SEEN_STEP_MS) {
    await deps.stores.sessions.touch(session.id, nowMs)
    session.lastSeenAtMs = nowMs
  }
  return { session, user, claim, isPasswordFresh: nowMs - session.passwordAtMs < FRESH_PASSWORD_MS }
}

/** The password was just entered again in this session: the sensitive actions are open for FRESH_PASSWORD_MS. */
export async function markPasswordFresh(deps: Deps, live: LiveSession): Promise<void> {
  await deps.stores.sessions.confirmPassword(live.session.id, deps.clock.nowMs())
}

/** Signs out one session of the person (theirs only); false when it was not live. */
export async function endBrowserSession(deps: Deps, userId: string, sessionId: string): Promise<boolean> {
  return deps.stores.sessions.end(sessionId, userId, deps.clock.nowMs())
}

/** "Sign out of all other sessions": every session of the person but this one ends. */
export async function endOtherBrowserSessions(deps: Deps, live: LiveSession, address: string): Promise<number> {
  const ended = await deps.stores.sessions.endOthers(live.user.id, live.session.id, deps.clock.nowMs())
  await recordAudit(deps, { event: 'sessions.ended', userId: live.user.id, address, detail: { scope: 'others', sessions: ended } })
  return ended
}

/** Every session of the person ends, on every instance from its next request (the CLI's sign-out-everywhere). */
export async function endEveryBrowserSession(deps: Deps, userId: string, address?: string): Promise<boolean> {
  const ended = await deps.stores.sessions.endAll(userId)
  if (ended) await recordAudit(deps, { event: 'sessions.ended', userId, address, detail: { scope: 'all' } })
  return ended
}

/** How long after an app is made or its keys regenerated its new secret may be shown, once, in that session. */
export const REVEAL_MS = 5 * 60_000

/** Names the app and its key pair: worth nothing after another regeneration. Holds no secret. */
const revealMark = (app: AppRecord) => `${app.id}:${app.consumerKey}`

/** The app's new consumer secret is to be shown once in this session (the app's page shows it). */
export async function markSecretToReveal(deps: Deps, live: LiveSession, app: AppRecord): Promise<void> {
  await deps.stores.sessions.markReveal(live.session.id, revealMark(app), deps.clock.nowMs() + REVEAL_MS)
}

/** Whether this session is to see the app's secret, as its row read for this request says. */
export function hasSecretToReveal(deps: Pick<Deps, 'clock'>, live: LiveSession, app: AppRecord): boolean {
  const { reveal } = live.session
  return reveal !== undefined && reveal.mark === revealMark(app) && reveal.untilMs > deps.clock.nowMs()
}

/**
 * Uses up the mark in one conditional statement: of any number of page views (a saved cookie
 * replayed) only one gets true and shows the secret.
 */
export function takeSecretToReveal(deps: Deps, live: LiveSession, app: AppRecord): Promise<boolean> {
  return deps.stores.sessions.takeReveal(live.session.id, revealMark(app), deps.clock.nowMs())
}

/** The person's live sessions, last seen first. */
export async function listBrowserSessions(deps: Deps, userId: string): Promise<BrowserSessionRecord[]> {
  const nowMs = deps.clock.nowMs()
  return (await deps.stores.sessions.listOpen(userId)).filter((session) => isLive(deps, session, nowMs))
}
