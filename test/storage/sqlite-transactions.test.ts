import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStores } from '../../src/storage/open-stores.ts'
import { testKeyring } from '../helpers/keys.ts'
import { transactionContract } from './transaction-contract.ts'

/** Every test gets its own database file in its own temp folder. */
transactionContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-units-'))
  const stores = await openStores({ keyring: testKeyring(), databaseUrl: join(dir, 'latchkey.sqlite') })
  return {
    stores,
    async close() {
      await stores.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})
