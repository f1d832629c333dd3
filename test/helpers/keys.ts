import { newKeyring, parseKeyring, serializeKeyring, type KeyringSource } from '../../src/storage/sealing/keyring.ts'

/**
 * One master keyring per test process, inline: every store a test opens and every `latchkey`
 * process it spawns (through cliEnv's LATCHKEY_MASTER_KEY) seal and open with the same keys.
 */
export const TEST_MASTER_KEY = serializeKeyring(newKeyring())

export function testKeyring(): KeyringSource {
  return { kind: 'inline', keyring: parseKeyring(TEST_MASTER_KEY) }
}
