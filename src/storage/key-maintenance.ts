import { statSync } from 'node:fs'
import { openDatabase } from './open-stores.ts'
import { migrateToLatest } from './sql/migrations.ts'
import { countSealedUnder, resealAll } from './sql/reseal.ts'
import { readKeyringFile, watchKeyring, withNewActiveKey, withoutKey, writeKeyringFile, KeyringError, type Keyring } from './sealing/keyring.ts'
import { createSealer } from './sealing/sealer.ts'

/** How long after a change of the key file every instance is sure to have read it. */
const RELOAD_GRACE_MS = 3000

export interface KeyStatus {
  activeKeyId: string
  keys: Array<{ id: string; values: number }>
}

/**
 * Master-key maintenance for `latchkey keys`: rotation writes a new active key into the key file
 * (running instances read it within a second, and at once when they meet a value sealed under it)
 * and then re-seals every value in small transactions while the service keeps answering; a key is
 * retired only once no value is sealed under it.
 */
export async function withKeyMaintenance<T>(
  databaseUrl: string,
  keyFile: string,
  run: (m: { status(): Promise<KeyStatus>; rotate(): Promise<{ newKeyId: string; resealed: number }>; reseal(): Promise<number>; retire(id: string): Promise<void> }) => Promise<T>,
): Promise<T> {
  const db = await openDatabase(databaseUrl)
  try {
    await migrateToLatest(db)
    const ring = watchKeyring({ kind: 'file', path: keyFile })
    const sealer = createSealer(ring)
    const current = (): Keyring => ring(true)
    return await run({
      async status() {
        const keyring = current()
        const keys = []
        for (const id of keyring.keys.keys()) keys.push({ id, values: await countSealedUnder(db, id) })
        return { activeKeyId: keyring.activeKeyId, keys }
      },
      async rotate() {
        const rotated = withNewActiveKey(readKeyringFile(keyFile))
        writeKeyringFile(keyFile, rotated)
        current()
        return { newKeyId: rotated.activeKeyId, resealed: await resealAll(db, sealer) }
      },
      reseal: () => resealAll(db, sealer),
      async retire(id) {
        const keyring = readKeyringFile(keyFile)
        if (id === keyring.activeKeyId) throw new KeyringError(`key ${id} is the active key; rotate first`)
        // Instances read a changed key file within a second; until then one may still seal under the old key.
        const ageMs = Date.now() - statSync(keyFile).mtimeMs
        if (ageMs < RELOAD_GRACE_MS) throw new KeyringError(`the key file changed ${Math.round(ageMs / 1000)} s ago; wait until every instance has read it (${RELOAD_GRACE_MS / 1000} s)`)
        // Values a not-yet-reloaded instance sealed under the old key meanwhile: re-seal them first.
        await resealAll(db, sealer)
        const left = await countSealedUnder(db, id)
        if (left > 0) throw new KeyringError(`${left} values are still sealed under key ${id}; run \`latchkey keys reseal\` and try again`)
        writeKeyringFile(keyFile, withoutKey(keyring, id))
      },
    })
  } finally {
    await db.destroy()
  }
}
