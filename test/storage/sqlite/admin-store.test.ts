import { adminContract } from '../admin-contract.ts'
import { openFreshSqlite } from './open-fresh.ts'

adminContract('SQLite', openFreshSqlite)
