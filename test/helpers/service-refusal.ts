import assert from 'node:assert/strict'
import type { ErrorDef } from '../../src/errors/catalogue.ts'
import { ServiceError } from '../../src/errors/service-error.ts'

/**
 * Awaits `work` and asserts it was refused as the caller sees it: the catalogue entry's status and
 * code, this exact message and (when given) the field it names.
 */
export async function assertRefusedWith(work: Promise<unknown>, def: ErrorDef, message: string, field?: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`)
    assert.deepEqual({ status: error.status, code: error.code, message: error.message }, { status: def.status, code: def.code, message })
    if (field !== undefined) assert.equal(error.field, field)
    return true
  })
}
