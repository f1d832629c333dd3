import { ServiceError } from '../../errors/service-error.ts'
import type { UserRecord } from '../../storage/records.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { passwordHashFormat } from '../passwords.ts'
import { checkScreenName, validName } from '../registry/users.ts'
import { validEmail } from './email-address.ts'

/**
 * Importing people with the password hashes of the system they come from (`latchkey user import`,
 * `POST /admin/v1/users/import`). Each entry gets its own answer: created, unchanged (the same
 * person is already here: importing twice changes nothing) or refused with the reason; a refused
 * entry never stops the others. No answer, log or audit row holds the hash.
 */
export type ImportStatus = 'created' | 'unchanged' | 'refused'

export interface ImportResult {
  /** The entry's place: the line number of a file, the position in the admin call's list. */
  index: number
  status: ImportStatus
  id?: string
  screenName?: string
  reason?: string
}

/** An entry that was not JSON: refused as such (the text itself is not repeated: it may hold a hash). */
export const NOT_JSON = Symbol('not JSON')

/** A line of a JSON-lines file, parsed; NOT_JSON when it is not JSON. */
export function parseImportLine(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch {
    return NOT_JSON
  }
}

const FIELDS = ['screen_name', 'password_hash', 'name', 'email', 'id']
const ID = /^[1-9]\d{0,15}$/
const SCREEN_NAME = /^[A-Za-z0-9_]{1,15}$/

export type ImportDeps = Pick<DomainDeps, 'stores' | 'clock' | 'newId'>

/** A refusal of one entry, with the reason it is given. */
class Refused extends Error {}
const refuse = (reason: string): never => {
  throw new Refused(reason)
}

/** The reason of a field's rule (a ServiceError of the shared checks), as a refusal. */
function byRule<T>(check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof ServiceError) refuse(error.message)
    throw error
  }
}

/** An entry as a person to make: each check in order, the first that fails is the reason. */
function personOf(entry: unknown, deps: ImportDeps): UserRecord {
  if (entry === NOT_JSON) refuse('not JSON')
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) refuse('not a JSON object')
  const fields = entry as Record<string, unknown>
  const unknown = Object.keys(fields).filter((key) => !FIELDS.includes(key))
  // A key is repeated only when it looks like a field name: it could hold anything (a hash, a terminal's escape).
  const named = unknown.filter((key) => /^[A-Za-z0-9_]{1,40}$/.test(key))
  if (unknown.length > 0) refuse(`unknown field ${named.length === unknown.length ? named.join(', ') : 'names'} (known: ${FIELDS.join(', ')})`)
  const { screen_name: screenName, password_hash: passwordHash, name, email, id } = fields
  if (typeof screenName !== 'string') refuse('screen_name is missing or not a string')
  byRule(() => checkScreenName(screenName as string))
  if (typeof passwordHash !== 'string') refuse('password_hash is missing or not a string')
  if (!passwordHashFormat(passwordHash as string)) refuse('password_hash is not a known format (bcrypt, argon2id, pbkdf2_sha256, scrypt) or its cost is out of bounds')
  if (name !== undefined && typeof name !== 'string') refuse('name is not a string')
  if (email !== undefined && typeof email !== 'string') refuse('email is not a string')
  if (id !== undefined && !(typeof id === 'string' && ID.test(id) && Number(id) <= Number.MAX_SAFE_INTEGER)) refuse('id must be a string of up to 16 digits')
  return {
    id: (id as string | undefined) ?? deps.newId(),
    screenName: screenName as string,
    name: byRule(() => validName((name as string | undefined) ?? (screenName as string))),
    passwordHash: passwordHash as string,
    createdAtMs: deps.clock.nowMs(),
    ...(email === undefined ? {} : { email: byRule(() => validEmail(email as string)) }),
  }
}

/**
 * Whether the person is already here: the same screen name with the same hash (or, once they have
 * signed in and the hash was replaced, the same id given). Anyone else of that screen name, id or
 * e-mail address refuses the entry.
 */
async function alreadyHere(deps: ImportDeps, person: UserRecord, hasFixedId: boolean): Promise<UserRecord | undefined> {
  const existing = await deps.stores.users.findByScreenName(person.screenName)
  if (existing && (existing.passwordHash === person.passwordHash || (hasFixedId && existing.id === person.id))) return existing
  if (existing) refuse(`screen name ${person.screenName} is taken by another person`)
  if (hasFixedId && (await deps.stores.users.findById(person.id))) refuse(`id ${person.id} is taken by another person`)
  if (person.email && (await deps.stores.users.findByEmail(person.email))) refuse('email is taken by another person')
  return undefined
}

/** Creates the person, audited as `user.created` with `imported: true` and the hash's format (never the hash). */
async function create(deps: ImportDeps, person: UserRecord): Promise<boolean> {
  return changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.users.create(person))) return false
    const detail = { screen_name: person.screenName, imported: true, hash_format: passwordHashFormat(person.passwordHash)! }
    await audit({ event: 'user.created', userId: person.id, detail })
    return true
  })
}

/** One entry imported, or why not. */
export async function importPerson(deps: ImportDeps, index: number, entry: unknown): Promise<ImportResult> {
  try {
    const person = personOf(entry, deps)
    const hasFixedId = (entry as { id?: unknown }).id !== undefined
    const unchanged = (found: UserRecord): ImportResult => ({ index, status: 'unchanged', id: found.id, screenName: found.screenName })
    const existing = await alreadyHere(deps, person, hasFixedId)
    if (existing) return unchanged(existing)
    if (await create(deps, person)) return { index, status: 'created', id: person.id, screenName: person.screenName }
    // The name, id or address was taken between the look and the insert (another import, a sign-up).
    return unchanged((await alreadyHere(deps, person, hasFixedId)) ?? refuse('screen name, id or email taken by another person meanwhile'))
  } catch (error) {
    if (!(error instanceof Refused)) throw error
    const screenName = (entry as { screen_name?: unknown } | null)?.screen_name
    const isScreenName = typeof screenName === 'string' && SCREEN_NAME.test(screenName)
    return { index, status: 'refused', reason: error.message, ...(isScreenName ? { screenName } : {}) }
  }
}

/**
 * Every entry in order, numbered from `firstIndex`; `progress` hears after each how many are done.
 * One at a time: each is a unit of work of its own, and the database is shared with sign-ins.
 */
export async function importPeople(deps: ImportDeps, entries: unknown[], options: { firstIndex: number; progress?: (done: number) => void }): Promise<ImportResult[]> {
  const results: ImportResult[] = []
  for (const [offset, entry] of entries.entries()) {
    results.push(await importPerson(deps, options.firstIndex + offset, entry))
    options.progress?.(results.length)
  }
  return results
}

/** An entry's answer as the CLI's `--json` and the admin API show it. */
export function importResultJson(result: ImportResult) {
  const { index, status, id, screenName, reason } = result
  return { index, status, ...(id ? { id } : {}), ...(screenName ? { screen_name: screenName } : {}), ...(reason ? { reason } : {}) }
}

/** How many entries ended in each status. */
export function importCounts(results: ImportResult[]): Record<ImportStatus, number> {
  const counts = { created: 0, unchanged: 0, refused: 0 }
  for (const result of results) counts[result.status]++
  return counts
}
