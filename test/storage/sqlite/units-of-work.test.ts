import { transactionContract } from '../transaction-contract.ts'
import { openFreshSqlite } from './open-fresh.ts'

transactionContract('SQLite', openFreshSqlite)
