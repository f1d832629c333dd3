import { test } from 'node:test'
import { openStores } from '../../src/storage/open-stores.ts'
import { SHARED_BACKENDS_SKIP, createTestSchema } from '../helpers/backends.ts'
import { testKeyring } from '../helpers/keys.ts'
import { transactionContract } from './transaction-contract.ts'

/** The same units-of-work contract as SQLite, on PostgreSQL: every test in a fresh schema, dropped afterwards. */
if (SHARED_BACKENDS_SKIP) {
  test('PostgreSQL units of work', { skip: SHARED_BACKENDS_SKIP }, () => {})
} else {
  transactionContract('PostgreSQL', async () => {
    const schema = await createTestSchema()
    const stores = await openStores({ keyring: testKeyring(), databaseUrl: schema.url }).catch(async (error: unknown) => {
      await schema.drop()
      throw error
    })
    return {
      stores,
      async close() {
        await stores.close()
        await schema.drop()
      },
    }
  })
}
