import { Command, InvalidArgumentError } from 'commander'
import { listAuditEvents, type ListedAuditEvent } from '../../domain/audit-query.ts'
import { pruneAuditTrail } from '../../domain/audit-retention.ts'
import { withDomain } from '../context.ts'
import { print } from '../output.ts'

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i
export const MAX_LIMIT = 10_000

/**
 * --since: a duration back from now (`30s`, `15m`, `2h`, `7d`, `1w`) or an ISO date (midnight UTC)
 * or date-time (local time unless it ends in Z or an offset).
 */
export function parseSince(text: string, nowMs: number = Date.now()): number {
  const relative = /^(\d{1,9})([smhdw])$/.exec(text.trim())
  if (relative) return nowMs - Number(relative[1]) * (UNIT_MS[relative[2] as string] as number)
  const atMs = ISO_DATE.test(text.trim()) ? Date.parse(text.trim()) : NaN
  if (Number.isNaN(atMs)) {
    throw new InvalidArgumentError('give a duration such as 15m, 2h or 7d, or an ISO date such as 2025-06-01 or 2025-06-01T12:00:00Z')
  }
  return atMs
}

function parseLimit(text: string): number {
  const limit = /^\d{1,6}$/.test(text) ? Number(text) : NaN
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new InvalidArgumentError(`give a whole number from 1 to ${MAX_LIMIT}`)
  return limit
}

/** Control characters (a terminal's escape sequences among them) shown as \u escapes. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they must not reach the terminal
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

function eventView(e: ListedAuditEvent) {
  return {
    at: new Date(e.atMs).toISOString(),
    event: e.event,
    app_id: e.appId,
    user_id: e.userId,
    screen_name: e.screenName,
    address: e.address,
    detail: e.detail,
  }
}

function eventLine(e: ListedAuditEvent): string {
  const user = e.screenName ?? e.userId ?? '-'
  const detail = e.detail === null ? '' : `  ${JSON.stringify(e.detail)}`
  return printable(`${new Date(e.atMs).toISOString()}  ${e.event.padEnd(24)}  app=${e.appId ?? '-'}  user=${user}  from=${e.address ?? '-'}${detail}`)
}

interface AuditOptions {
  app?: string
  user?: string
  since?: number
  limit: number
  json?: boolean
}

/** `latchkey audit`: who was given or lost which credential, signed in, consented or was refused, newest first. */
export function auditCommand(): Command {
  const audit = new Command('audit')
    .description('show the audit trail, newest first (issues, exchanges, invalidations, key rotations, sign-ins, consents)')
    .option('--app <app>', 'only events of this app (app id or consumer key)')
    .option('--user <user>', 'only events of this person (a user id or a screen name)')
    .option('--since <time>', 'only events since a time: 15m, 2h, 7d, or an ISO date or date-time', (text) => parseSince(text))
    .option('--limit <n>', `at most this many events (1 to ${MAX_LIMIT})`, parseLimit, 100)
    .option('--json', 'print JSON')
    .action(async (options: AuditOptions, command: Command) => {
      const events = await withDomain(command, (deps) =>
        listAuditEvents(deps, { app: options.app, user: options.user, sinceMs: options.since, limit: options.limit }),
      )
      print(!!options.json, events.map(eventView), () => (events.length === 0 ? 'no events' : events.map(eventLine).join('\n')))
    })
  audit
    .command('prune')
    .description('delete the audit rows written before a time (serve also deletes those older than --audit-retention)')
    .requiredOption('--before <time>', 'a duration back from now (90d, 52w) or an ISO date or date-time', (text) => parseSince(text))
    .option('--json', 'print JSON')
    .action(async (_options: unknown, command: Command) => {
      // --json is audit's own option too: commander hands it to whichever command declares it first.
      const options = command.optsWithGlobals<{ before: number; json?: boolean }>()
      const deleted = await withDomain(command, (deps) => pruneAuditTrail(deps, options.before, 'cli'))
      const before = new Date(options.before).toISOString()
      print(!!options.json, { deleted, before }, () => `deleted ${deleted} audit ${deleted === 1 ? 'row' : 'rows'} written before ${before}`)
    })
  return audit
}
