import { PROBLEM_TYPES, ProblemError } from './problem.ts'

/**
 * Cursors are opaque to clients: the sort key of the last row of a page, base64url-encoded. A list
 * resumes strictly after that key, so rows inserted meanwhile neither repeat nor shift a page.
 */
export const MAX_PAGE = 200
export const DEFAULT_PAGE = 50

/** The key form of the lists paged by id (users, apps): a snowflake id. */
export const ID_KEY = /^\d{1,20}$/

export const encodeCursor = (key: string): string => Buffer.from(key, 'utf8').toString('base64url')

/** The key in a cursor, checked against the form this list's keys have; a 400 problem otherwise. */
export function decodeCursor(cursor: string | undefined, form: RegExp): string | undefined {
  if (cursor === undefined) return undefined
  const key = /^[A-Za-z0-9_-]{1,100}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : ''
  if (!form.test(key) || encodeCursor(key) !== cursor) {
    throw new ProblemError(400, PROBLEM_TYPES.validation, 'The cursor is not one this list gave.', [
      { in: 'query', field: 'cursor', detail: 'must be a next_cursor from this list' },
    ])
  }
  return key
}

/** A page of `limit` rows from `limit + 1` fetched: the extra row only says that there is a next page. */
export function page<T, V>(rows: T[], limit: number, keyOf: (row: T) => string, view: (row: T) => V): { data: V[]; next_cursor: string | null } {
  const shown = rows.slice(0, limit)
  const last = shown[shown.length - 1]
  return { data: shown.map(view), next_cursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null }
}
