import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStorage } from '../../src/storage/open-stores.ts'
import { storeContract, type OpenFreshStores } from './contract.ts'
import { testKeyring } from '../helpers/keys.ts'
import { deleteBehindStores } from '../helpers/test-app.ts'
import { transactionContract } from './transaction-contract.ts'
import { oauth2Contract } from './oauth2-contract.ts'
import { adminContract } from './admin-contract.ts'

/** Every test gets its own database file in its own temp folder. */
const openFresh: OpenFreshStores = async ({ settleNonceEpoch, nonceBudget }) => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-store-'))
  const path = join(dir, 'latchkey.sqlite')
  const { stores, runtime } = await openStorage({ keyring: testKeyring(), databaseUrl: path, settleNonceEpoch, nonceBudget })
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

storeContract('SQLite', openFresh)
transactionContract('SQLite', openFresh)
oauth2Contract('SQLite', openFresh)
adminContract('SQLite', openFresh)
