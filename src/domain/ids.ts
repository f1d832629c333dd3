import { randomInt } from 'node:crypto'
import type { Clock } from './clock.ts'

/** 2020-01-01T00:00:00Z: ids count milliseconds from here. */
const EPOCH_MS = 1_577_836_800_000
const SEQUENCE_BITS = 12
const SEQUENCE_SIZE = 2 ** SEQUENCE_BITS

/**
 * Makes time-ordered numeric ids (as strings) for users and apps: milliseconds since 2020 times
 * 4096 plus a sequence, which stays below 2^53 (exact as a JSON number everywhere) until 2089.
 * Ids are never reused: the sequence starts at random per process and the database's primary key
 * rejects the rare collision between processes, on which the caller asks for another id.
 */
export function createIdGenerator(clock: Clock): () => string {
  let lastMs = 0
  let sequence = randomInt(SEQUENCE_SIZE)
  return () => {
    let ms = Math.max(clock.nowMs() - EPOCH_MS, lastMs)
    sequence = (sequence + 1) % SEQUENCE_SIZE
    if (ms === lastMs && sequence === 0) ms += 1
    lastMs = ms
    return String(ms * SEQUENCE_SIZE + sequence)
  }
}
