// The little of node-oidc-provider's API the tests use (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Context = any

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (request: IncomingMessage, response: ServerResponse) => void
    on(event: string, listener: (ctx: Context, error: Error) => void): this
  }
}
