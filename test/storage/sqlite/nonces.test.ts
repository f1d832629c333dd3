import { nonceContract } from '../nonce-contract.ts'
import { openFreshSqlite } from './open-fresh.ts'

nonceContract('SQLite', openFreshSqlite)
