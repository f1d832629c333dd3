// `npx tsx bench/pragmas-micro.ts`: the lookup of a signed request (app, token, owner) on shape 5's database (10^6
// tokens, 10^5 apps, 10^4 credentials in use, in random order), in-process, with SQLite's page cache
// and mmap as src/storage/sqlite/open.ts sets them, then as before (better-sqlite3's 16 MB cache, no
// mmap). Seeding takes 1–3 minutes. Not a test: timings on a shared machine vary.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { createSqlStorage } from '../src/storage/open-stores.ts'
import { openSqlite } from '../src/storage/sqlite/open.ts'
import { newKeyring, parseKeyring, serializeKeyring } from '../src/storage/sealing/keyring.ts'
import { createSealer } from '../src/storage/sealing/sealer.ts'
import { seedLarge } from './seed.ts'
import { openDomain, registerBench } from './setup.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-pragmas-'))
const database = join(dir, 'large.sqlite')
const masterKey = serializeKeyring(newKeyring())
try {
  const deps = await openDomain({ database }, masterKey)
  await registerBench(deps)
  await deps.runtime.close()
  const seeded = await seedLarge(database, masterKey, { apps: 100_000, tokens: 1_000_000, sample: 10_000 })
  console.log(`seeded in ${seeded.seconds.toFixed(0)} s`)
  for (const round of [1, 2]) {
    for (const [name, pragmas] of [['as opened now', []], ['16 MB cache, no mmap', ['cache_size = -16000', 'mmap_size = 0']]] as const) {
      const db = openSqlite(database)
      for (const p of pragmas) await sql.raw(`pragma ${p}`).execute(db)
      const { stores, runtime } = createSqlStorage(db, createSealer(() => parseKeyring(masterKey)))
      const creds = [...seeded.sample].sort(() => Math.random() - 0.5)
      const lookup = async (i: number) => {
        const c = creds[i % creds.length]!
        await stores.credentials.findConsumerWithAccessToken(c.consumerKey, c.accessToken)
      }
      for (let i = 0; i < 20_000; i++) await lookup(i)
      const cpu = process.cpuUsage()
      const t = performance.now()
      const N = 50_000
      for (let i = 0; i < N; i++) await lookup(i)
      const used = process.cpuUsage(cpu)
      console.log(`round ${round}, ${name}: ${(((performance.now() - t) * 1000) / N).toFixed(1)} µs a lookup, cpu ${((used.user + used.system) / N).toFixed(1)} (system ${(used.system / N).toFixed(1)})`)
      await runtime.close()
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
