/**
 * A store that cannot answer right now (database unreachable, nonce store full). The HTTP layer
 * answers 503 code 130 "Over capacity"; it is never the client's fault and never half-writes.
 */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
}
