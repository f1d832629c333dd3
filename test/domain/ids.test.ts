import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createIdGenerator } from '../../src/domain/ids.ts'

test('ids made within one millisecond are digits, unique, increasing and below 2^53', () => {
  const newId = createIdGenerator({ nowMs: () => Date.UTC(2030, 0, 1) })
  const ids = Array.from({ length: 10_000 }, newId)
  for (const id of ids) assert.match(id, /^[1-9]\d*$/)
  for (let i = 1; i < ids.length; i++) assert.ok(BigInt(ids[i]!) > BigInt(ids[i - 1]!), `${ids[i]} follows ${ids[i - 1]}`)
  assert.ok(BigInt(ids.at(-1)!) < 2n ** 53n)
})

test('ids keep increasing when the clock steps back', () => {
  let now = Date.UTC(2030, 0, 1)
  const newId = createIdGenerator({ nowMs: () => now })
  const before = newId()
  now -= 60_000
  assert.ok(BigInt(newId()) > BigInt(before))
})

test('ids made in 2089 are still below 2^53', () => {
  const newId = createIdGenerator({ nowMs: () => Date.UTC(2089, 0, 1) })
  assert.ok(Number.isSafeInteger(Number(newId())))
})

/** 2020-01-01T00:00:00Z, from which an id's milliseconds count. */
const EPOCH_MS = Date.UTC(2020, 0, 1)
const millisecondsOf = (id: string) => Math.floor(Number(id) / 4096)

test('an id is the clock\'s milliseconds since 2020 times 4096 plus a sequence', () => {
  const now = Date.UTC(2030, 0, 1)
  const newId = createIdGenerator({ nowMs: () => now })
  assert.equal(millisecondsOf(newId()), now - EPOCH_MS)
})

test('within one millisecond the time part moves on by one only when the 4096 sequence numbers run out', () => {
  const now = Date.UTC(2030, 0, 1)
  const newId = createIdGenerator({ nowMs: () => now })
  // 4096 ids pass sequence number 0 exactly once (the sequence starts at random): the ids before it
  // are of this millisecond, the rest of the next.
  const times = Array.from({ length: 4096 }, () => millisecondsOf(newId()) - (now - EPOCH_MS))
  const firstOfNext = times.indexOf(1)
  assert.ok(firstOfNext >= 0 || times.every((time) => time === 0))
  assert.deepEqual(times, times.map((_, i) => (firstOfNext >= 0 && i >= firstOfNext ? 1 : 0)))
})

test('an id of a new millisecond keeps that millisecond, even at sequence number 0', () => {
  // One id per millisecond: 4096 of them pass sequence number 0 exactly once.
  let now = Date.UTC(2030, 0, 1)
  const newId = createIdGenerator({ nowMs: () => now })
  for (let i = 0; i < 4096; i++, now++) assert.equal(millisecondsOf(newId()), now - EPOCH_MS)
})
