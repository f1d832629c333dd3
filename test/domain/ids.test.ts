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
