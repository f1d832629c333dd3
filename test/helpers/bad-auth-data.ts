import assert from 'node:assert/strict'
import { ServiceError } from '../../src/errors/service-error.ts'

/** Whether `error` is the 215 "Bad Authentication data." of the protocol core. */
export const is215 = (error: unknown): boolean => error instanceof ServiceError && error.code === 215

/** The detail (the operator's log text) of the 215 that `work` throws; fails the test when it throws none. */
export function detailOf215(work: () => unknown): string | undefined {
  try {
    work()
  } catch (error) {
    assert.ok(is215(error), String(error))
    return (error as ServiceError).detail
  }
  assert.fail('expected a 215')
}
