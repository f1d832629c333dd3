import type { Command } from 'commander'
import { composeDomain } from '../composition/root.ts'
import { loadConfig } from '../config/load.ts'
import type { Config } from '../config/settings.ts'
import type { DomainDeps } from '../domain/deps.ts'

/** The config as `serve` would see it: defaults < --config file < LATCHKEY_* < flags. */
export function configFrom(command: Command, flags: Partial<Record<string, unknown>> = {}): Config {
  const globals = command.optsWithGlobals() as { config?: string; database?: string; dev?: boolean }
  return loadConfig({
    env: process.env,
    file: globals.config,
    flags: { ...flags, ...(globals.database ? { database: globals.database } : {}) },
  })
}

/** Runs a command against the same database the server uses, and closes it afterwards. */
export async function withDomain<T>(command: Command, run: (deps: DomainDeps) => Promise<T>): Promise<T> {
  // The CLI verifies no signed request: it need not wait for the nonce store's epoch.
  const deps = await composeDomain(configFrom(command), undefined, { verifiesRequests: false })
  try {
    return await run(deps)
  } finally {
    await deps.runtime.close()
  }
}
