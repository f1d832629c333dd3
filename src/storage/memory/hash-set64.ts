/** Slots of the first table of a set; each next table doubles, up to MAX_TABLE_SLOTS. */
const FIRST_TABLE_SLOTS = 1024
/** 2^16 slots (512 KiB): a table never grows past this, so no insert ever rehashes a big table. */
const MAX_TABLE_SLOTS = 65_536
/** A table takes entries until it is this full; linear probing stays short below it. */
const MAX_LOAD = 0.75

/** One open-addressing table: slot i holds the hash's high word at 2i and its low word at 2i + 1; 0,0 is empty. */
interface Table {
  words: Uint32Array
  mask: number
  size: number
  limit: number
}

function newTable(slots: number): Table {
  return { words: new Uint32Array(slots * 2), mask: slots - 1, size: 0, limit: Math.floor(slots * MAX_LOAD) }
}

/** The slot holding (hi, lo), or the empty slot where its probe sequence ends (as a negative index - 1). */
function probe(table: Table, hi: number, lo: number): number {
  const { words, mask } = table
  let slot = lo & mask
  for (;;) {
    const h = words[slot * 2]!
    const l = words[slot * 2 + 1]!
    if (h === hi && l === lo) return slot
    if (h === 0 && l === 0) return -slot - 1
    slot = (slot + 1) & mask
  }
}

/**
 * A set of 64-bit hashes in typed arrays, about 11 bytes an entry: a list of open-addressing tables,
 * each filled to 75 % before the next (twice as big, at most 2^16 slots) is started. Nothing is ever
 * rehashed or deleted; the owner drops the whole set at once (the nonce store's time buckets).
 */
export class HashSet64 {
  private readonly tables: Table[] = [newTable(FIRST_TABLE_SLOTS)]
  size = 0

  /** Adds (hi, lo) (two unsigned 32-bit words; not both 0); false when it was already there. */
  add(hi: number, lo: number): boolean {
    for (const table of this.tables) if (probe(table, hi, lo) >= 0) return false
    let last = this.tables[this.tables.length - 1]!
    if (last.size >= last.limit) {
      last = newTable(Math.min(MAX_TABLE_SLOTS, (last.mask + 1) * 2))
      this.tables.push(last)
    }
    const slot = -probe(last, hi, lo) - 1
    last.words[slot * 2] = hi
    last.words[slot * 2 + 1] = lo
    last.size++
    this.size++
    return true
  }

  has(hi: number, lo: number): boolean {
    return this.tables.some((table) => probe(table, hi, lo) >= 0)
  }

  /** The bytes of its typed arrays. */
  get bytes(): number {
    return this.tables.reduce((sum, table) => sum + table.words.byteLength, 0)
  }
}
