// The test mode (`latchkey serve --test`): Latchkey as the stand-in a client's test suite drives.
// docs/test-kit.md says what it is for and what each control call does.
import type { Config } from './config/settings.ts'
import { createAdminToken } from './domain/admin/admin-tokens.ts'
import { startServer, type RunningServer } from './server.ts'

/** The name of the admin token the test mode makes at start, for the control calls. */
export const TEST_ADMIN_TOKEN = 'test'

/** The one line the test mode writes on stdout once it listens, for a fixture in any language to read. */
export interface TestStartLine {
  url: string
  admin_url: string
  admin_token: string
}

/**
 * Starts the service in test mode (the config's `test` is set; checkServeRules holds it to its
 * limits): listens, makes an admin token, and keeps the state a reset goes back to.
 */
export async function startTestMode(config: Config): Promise<{ server: RunningServer; startLine: TestStartLine }> {
  const server = await startServer(config)
  try {
    if (!server.testKit || !server.adminUrl) throw new Error('the test mode needs its clock, its kept state and the admin listener')
    const admin = await createAdminToken(server.domain, TEST_ADMIN_TOKEN)
    await server.testKit.keep()
    return { server, startLine: { url: server.url, admin_url: server.adminUrl, admin_token: admin.token } }
  } catch (error) {
    await server.close()
    throw error
  }
}
