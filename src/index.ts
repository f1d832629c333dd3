/** What the `latchkey` package exports for resource servers. */
export { createVerifier, type ApiRequest, type LatchkeyVerifier, type VerifiedCaller } from './resource-server.ts'
export { createRemoteVerifier, RemoteCheckError, RemoteRefusal, type RemoteVerifier, type RemoteVerifierOptions, type EndedCredential } from './remote-verifier.ts'
export { ServiceError } from './errors/service-error.ts'
export { errorBody } from './web/json-errors.ts'
export { REVOCATIONS_CHANNEL, revocationChannel, type CredentialKind } from './storage/revocation-types.ts'
export { REVOCATION_EVENT_TYPES, type RevocationEvent, type RevocationEventType } from './domain/revocations/events.ts'
export { SIGNATURE_HEADER, webhookSignature } from './protocol/webhook-signature.ts'
