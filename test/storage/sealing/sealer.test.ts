import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newKeyring, withNewActiveKey, type Keyring } from '../../../src/storage/sealing/keyring.ts'
import { createSealer, SealError } from '../../../src/storage/sealing/sealer.ts'

/** A keyring source that counts how often the sealer asks for it. */
function countingKeyring(initial: Keyring) {
  const source = { ring: initial, asked: 0 }
  const keyring = () => {
    source.asked++
    return source.ring
  }
  return { source, keyring }
}

describe('sealer', () => {
  it('opens what it sealed, under a fresh IV each time', () => {
    const sealer = createSealer(() => newKeyring())
    const ring = newKeyring()
    const fixed = createSealer(() => ring)
    const a = fixed.seal('consumer secret')
    const b = fixed.seal('consumer secret')
    assert.notEqual(a, b)
    assert.equal(fixed.open(a), 'consumer secret')
    assert.equal(fixed.open(b), 'consumer secret')
    assert.throws(() => sealer.open(a), SealError)
  })

  it('refuses a tampered value', () => {
    const ring = newKeyring()
    const sealer = createSealer(() => ring, { cacheSize: 0 })
    const sealed = sealer.seal('token secret')
    // A character inside the ciphertext (the last one may carry only unused padding bits).
    const at = sealed.length - 10
    const swapped = sealed[at] === 'A' ? 'B' : 'A'
    assert.throws(() => sealer.open(sealed.slice(0, at) + swapped + sealed.slice(at + 1)), SealError)
  })

  it('opens values sealed under an older key after a rotation', () => {
    const { source, keyring } = countingKeyring(newKeyring())
    const sealer = createSealer(keyring)
    const old = sealer.seal('v')
    source.ring = withNewActiveKey(source.ring)
    assert.equal(sealer.isCurrent(old), false)
    assert.equal(sealer.isCurrent(sealer.seal('v')), true)
    assert.equal(createSealer(() => source.ring).open(old), 'v')
  })

  it('a value under a key it has not seen makes it read the key file again (another process rotated), and only then gives up, naming the key', () => {
    const before = newKeyring()
    const rotated = withNewActiveKey(before)
    // What the sealer holds until it forces a read (the key file as it was), and what a forced read finds.
    const sealer = createSealer((force) => (force ? rotated : before))
    const sealedElsewhere = createSealer(() => rotated).seal('token secret')
    assert.equal(sealer.open(sealedElsewhere), 'token secret')
    const unknown = createSealer(() => newKeyring())
    const stranger = unknown.seal('v')
    assert.throws(() => sealer.open(stranger), { name: 'SealError', message: `cannot open a value sealed under key ${stranger.split('.')[1]}` })
    assert.throws(() => sealer.open('v1'), { name: 'SealError', message: 'cannot open a value sealed under key ?' })
    assert.throws(() => sealer.open('v2.x.y.z'), { name: 'SealError', message: 'cannot open a value sealed under key x' })
    const [, keyId, iv] = sealedElsewhere.split('.')
    assert.throws(() => sealer.open(`v1.${keyId}`), { name: 'SealError', message: `cannot open a value sealed under key ${keyId}` }, 'no IV')
    assert.throws(() => sealer.open(`v1.${keyId}.${iv}`), { name: 'SealError', message: `cannot open a value sealed under key ${keyId}` }, 'no body')
    const body = sealedElsewhere.split('.')[3]
    assert.throws(() => sealer.open(`v1.${keyId}..${body}`), { name: 'SealError', message: `cannot open a value sealed under key ${keyId}` }, 'an empty IV')
  })

  it('a value that fails its integrity check is refused naming its key', () => {
    const ring = newKeyring()
    const sealer = createSealer(() => ring, { cacheSize: 0 })
    const sealed = sealer.seal('token secret')
    const [version, keyId, iv] = sealed.split('.')
    assert.throws(
      () => sealer.open(`${version}.${keyId}.${iv}.${Buffer.alloc(20).toString('base64url')}`),
      (error: Error) =>
        error.name === 'SealError' && error.message === `a value sealed under key ${keyId} failed its integrity check` && /authenticate/.test(String((error.cause as Error).message)),
    )
  })

  it('index: the same value always gives the same hash, another value another', () => {
    const ring = newKeyring()
    const sealer = createSealer(() => ring)
    const uncached = createSealer(() => ring, { cacheSize: 0 })
    assert.equal(sealer.index('key-1'), sealer.index('key-1'))
    assert.equal(sealer.index('key-1'), uncached.index('key-1'))
    assert.notEqual(sealer.index('key-1'), sealer.index('key-2'))
    const long = 'x'.repeat(10_000)
    assert.equal(sealer.index(long), uncached.index(long))
  })

  it('index: a different index key gives different hashes, even for values hashed before', () => {
    const { source, keyring } = countingKeyring(newKeyring())
    const sealer = createSealer(keyring)
    const before = sealer.index('consumer-key')
    source.ring = newKeyring()
    const after = sealer.index('consumer-key')
    assert.notEqual(after, before)
    assert.equal(after, createSealer(() => source.ring, { cacheSize: 0 }).index('consumer-key'))
  })

  it('keeps the most recently used values opened and forgets the least recently used', () => {
    const ring = newKeyring()
    const { source, keyring } = countingKeyring(ring)
    const sealer = createSealer(keyring, { cacheSize: 2 })
    const [a, b, c] = ['a', 'b', 'c'].map((v) => createSealer(() => ring).seal(v)) as [string, string, string]
    sealer.open(a)
    sealer.open(b)
    sealer.open(a) // a is now the most recently used
    sealer.open(c) // evicts b
    const asked = source.asked
    assert.equal(sealer.open(a), 'a')
    assert.equal(sealer.open(c), 'c')
    assert.equal(source.asked, asked, 'a and c came from the cache')
    assert.equal(sealer.open(b), 'b')
    assert.ok(source.asked > asked, 'b was opened again with the key')
  })
})
