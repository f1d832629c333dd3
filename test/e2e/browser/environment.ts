import type { Browser } from 'playwright-core'
import { startTestServer, type TestServer } from '../../helpers/test-app.ts'
import { launchBrowser } from './browser.ts'
import { startCallbackSite, type CallbackSite } from './oauth.ts'

/** What a browser suite runs against: Chromium, a Latchkey test server and the app's callback site. */
export interface BrowserEnvironment {
  browser: Browser
  server: TestServer
  site: CallbackSite
}

/** The browser first: when it cannot start (CI without Chromium) nothing else is left running. */
export async function startBrowserEnvironment(serverOptions: Parameters<typeof startTestServer>[0] = {}): Promise<BrowserEnvironment> {
  const browser = await launchBrowser()
  const server = await startTestServer(serverOptions)
  const site = await startCallbackSite()
  return { browser, server, site }
}

export async function closeBrowserEnvironment(env: Partial<BrowserEnvironment>): Promise<void> {
  await env.browser?.close()
  await env.site?.close()
  await env.server?.close()
}
