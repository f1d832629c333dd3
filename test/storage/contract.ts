import { test, describe } from 'node:test'
import { contractKit, type OpenFreshStores } from './contract/fixtures.ts'
import { accountsContract } from './contract/accounts.ts'
import { admissionsContract } from './contract/admissions.ts'
import { appsContract } from './contract/apps.ts'
import { auditContract } from './contract/audit.ts'
import { limitersContract } from './contract/limiters.ts'
import { credentialLookupsContract } from './contract/lookups.ts'
import { requestTokensContract } from './contract/request-tokens.ts'
import { revocationsContract } from './contract/revocations.ts'
import { tokensContract } from './contract/tokens.ts'
import { usersContract } from './contract/users.ts'

export * from './contract/fixtures.ts'

/**
 * The one contract every storage adapter passes (src/storage/types.ts, method by method), a file
 * per store under contract/. An adapter's test file calls `storeContract(name, open)`, where `open`
 * gives fresh, empty Stores and a way to close and remove them. Nothing here may depend on one
 * database's behaviour. The admin and OAuth 2.0 stores and the units of work have contracts of
 * their own (admin-contract.ts, oauth2-contract.ts, transaction-contract.ts).
 */
export function storeContract(adapter: string, open: OpenFreshStores): void {
  const kit = contractKit(adapter, open)
  describe(`${adapter} stores`, () => {
    test('answer a ping', async () => {
      await kit.withStores((_s, opened) => opened.runtime.ping())
    })
    usersContract(kit)
    appsContract(kit)
    credentialLookupsContract(kit)
    requestTokensContract(kit)
    tokensContract(kit)
    auditContract(kit)
    limitersContract(kit)
    admissionsContract(kit)
    revocationsContract(kit)
    accountsContract(kit)
  })
}
