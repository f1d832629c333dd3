import { layeredStorage } from '../../src/composition/store-layers.ts'
import { openStorage, type StorageOptions } from '../../src/storage/open-stores.ts'
import type { Storage } from '../../src/storage/types.ts'

/**
 * Storage as the service uses it (src/composition/store-layers.ts: units of work guarded, outages
 * translated, the generation moved) but without the validity cache: what the stores themselves answer.
 */
export async function openLayeredStorage(options: StorageOptions): Promise<Storage> {
  return layeredStorage(await openStorage(options), { cached: false })
}
