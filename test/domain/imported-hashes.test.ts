// Issue 50: passwords checked against hashes imported from other systems, made by their reference tools.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { NO_PASSWORD, isCurrentHash, passwordHashFormat, verifyPassword, hashPassword } from '../../src/domain/passwords.ts'
import { HASH_VECTORS, VECTOR_PASSWORD } from '../helpers/imported-hash-vectors.ts'

const FORMATS: Record<keyof typeof HASH_VECTORS, string> = {
  bcrypt2y: 'bcrypt',
  bcrypt2b: 'bcrypt',
  bcrypt2a: 'bcrypt',
  argon2id: 'argon2id',
  pbkdf2Sha256: 'pbkdf2_sha256',
  scrypt: 'scrypt',
}

describe('imported password hashes', () => {
  for (const [name, stored] of Object.entries(HASH_VECTORS) as Array<[keyof typeof HASH_VECTORS, string]>) {
    test(`${name}: the right password is accepted, a wrong one and a truncated hash refused`, async () => {
      assert.equal(passwordHashFormat(stored), FORMATS[name])
      assert.equal(await verifyPassword(VECTOR_PASSWORD, stored), true)
      assert.equal(await verifyPassword(`${VECTOR_PASSWORD}x`, stored), false)
      assert.equal(await verifyPassword(VECTOR_PASSWORD.slice(0, -1), stored), false)
      assert.equal(await verifyPassword(VECTOR_PASSWORD, stored.slice(0, -2)), false)
      assert.equal(isCurrentHash(stored), false, 'replaced by the current scrypt at the next sign-in')
    })
  }

  test("Latchkey's own hash with today's parameters is current; NO_PASSWORD and unknown formats match nothing", async () => {
    const own = await hashPassword(VECTOR_PASSWORD)
    assert.equal(isCurrentHash(own), true)
    assert.equal(passwordHashFormat(own), 'scrypt')
    for (const stored of [NO_PASSWORD, '', 'md5$abc$def', 'sha1$salt$0123456789abcdef0123456789abcdef01234567', '$1$saltsalt$abcdefghijklmnopqrstuv']) {
      assert.equal(passwordHashFormat(stored), undefined, stored)
      assert.equal(await verifyPassword(VECTOR_PASSWORD, stored), false, stored)
    }
  })

  test('a cost out of bounds is no known format: one imported row cannot make a sign-in take minutes or gigabytes', async () => {
    const outOfBounds = [
      HASH_VECTORS.bcrypt2b.replace('$10$', '$16$'),
      HASH_VECTORS.argon2id.replace('m=4096', 'm=4194304'),
      HASH_VECTORS.argon2id.replace('t=2', 't=1000'),
      HASH_VECTORS.pbkdf2Sha256.replace('$600000$', '$9000000$'),
      HASH_VECTORS.scrypt.replace('$16384$', '$1048576$'),
      HASH_VECTORS.scrypt.replace('$16384$', '$16383$'),
      HASH_VECTORS.argon2id.replace('$argon2id$', '$argon2i$'),
    ]
    for (const stored of outOfBounds) {
      assert.equal(passwordHashFormat(stored), undefined, stored)
      assert.equal(await verifyPassword(VECTOR_PASSWORD, stored), false, stored)
    }
  })

  test('argon2id parameters in another order are read the same (PHC strings name them)', async () => {
    const reordered = HASH_VECTORS.argon2id.replace('m=4096,t=2,p=1', 't=2,p=1,m=4096')
    assert.equal(passwordHashFormat(reordered), 'argon2id')
  })
})
