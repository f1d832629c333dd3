import { oauth2Contract } from '../oauth2-contract.ts'
import { openFreshSqlite } from './open-fresh.ts'

oauth2Contract('SQLite', openFreshSqlite)
