/** What the `latchkey` package exports for resource servers. */
export { createVerifier, type ApiRequest, type LatchkeyVerifier, type VerifiedCaller } from './resource-server.ts'
export { createRemoteVerifier, RemoteCheckError, RemoteRefusal, type RemoteVerifier, type RemoteVerifierOptions, type EndedCredential } from './remote-verifier.ts'
export { ServiceError } from './errors/service-error.ts'
export { errorBody } from './web/json-errors.ts'
