import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { test } from 'node:test'
import { hashPassword, verifyPassword } from '../../src/domain/passwords.ts'

// Hashes made here with scrypt itself at N=2^10 (a cost the mutation suite's cheaper scrypt leaves
// alone), in the stored form `scrypt$N$r$p$salt$hash`: verifyPassword must read the parameters from it.
const SALT = Buffer.from('0123456789abcdef')
const PASSWORD = 'correct horse battery staple'

function storedHash(fields: { scheme?: string; salt?: Buffer; key?: Buffer } = {}): string {
  const salt = fields.salt ?? SALT
  const key = fields.key ?? crypto.scryptSync(PASSWORD, salt, 32, { N: 1024, r: 8, p: 1 })
  return [fields.scheme ?? 'scrypt', 1024, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
}

test('verifies a password against a hash made by scrypt with the parameters it records', async () => {
  assert.equal(await verifyPassword(PASSWORD, storedHash()), true)
  assert.equal(await verifyPassword(`${PASSWORD}!`, storedHash()), false)
})

test('a hash of another scheme, without a salt or with a key of another length is false, not an error', async () => {
  // Each would verify if only its scheme or its missing salt were overlooked.
  assert.equal(await verifyPassword(PASSWORD, storedHash({ scheme: 'bcrypt' })), false)
  const noSalt = storedHash({ salt: Buffer.alloc(0) })
  assert.equal(noSalt.split('$')[4], '')
  assert.equal(await verifyPassword(PASSWORD, noSalt), false)
  const full = crypto.scryptSync(PASSWORD, SALT, 32, { N: 1024, r: 8, p: 1 })
  assert.equal(await verifyPassword(PASSWORD, storedHash({ key: full.subarray(0, 16) })), false)
  assert.equal(await verifyPassword(PASSWORD, 'not a hash at all'), false)
})

test('hashPassword records N=2^15, r=8, p=1, a 16-byte salt and the 32-byte key derived with them', async () => {
  const stored = await hashPassword(PASSWORD)
  const [scheme, n, r, p, salt, key] = stored.split('$')
  assert.deepEqual([scheme, n, r, p], ['scrypt', '32768', '8', '1'])
  assert.equal(Buffer.from(salt!, 'base64url').length, 16)
  // Derived through crypto.scrypt as the module reaches it (the mutation suite makes it cheaper).
  const expected = await new Promise<Buffer>((resolve, reject) =>
    crypto.scrypt(PASSWORD, Buffer.from(salt!, 'base64url'), 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (error, derived) =>
      error ? reject(error) : resolve(derived),
    ),
  )
  assert.equal(key, expected.toString('base64url'))
  assert.equal(await verifyPassword(PASSWORD, stored), true)
})
