import { storeContract } from '../contract.ts'
import { openFreshSqlite } from './open-fresh.ts'

storeContract('SQLite', openFreshSqlite)
