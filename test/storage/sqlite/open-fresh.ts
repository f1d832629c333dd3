import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openLayeredStorage } from '../layered.ts'
import { testKeyring } from '../../helpers/keys.ts'
import { deleteBehindStores } from '../../helpers/test-app.ts'
import type { OpenFreshStores } from '../contract.ts'

/**
 * How the store contracts open SQLite: every test gets its own database file in its own temp
 * folder. Each contract runs in a file of its own, so that a mutant of one store runs only the
 * contracts that reach it.
 */
export const openFreshSqlite: OpenFreshStores = async ({ settleNonceEpoch, nonceBudget }) => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-store-'))
  const path = join(dir, 'latchkey.sqlite')
  const { stores, runtime } = await openLayeredStorage({ keyring: testKeyring(), databaseUrl: path, settleNonceEpoch, nonceBudget })
  return {
    stores,
    runtime,
    async close() {
      await runtime.close()
      rmSync(dir, { recursive: true, force: true })
    },
    deleteBehindStores: (table, id) => deleteBehindStores(path, table, id),
  }
}
