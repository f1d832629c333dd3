import { after, before } from 'node:test'
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

/**
 * The set-up every browser suite shares, as the suite's own before and after hooks (call it at the
 * top of a describe): Chromium, a Latchkey test server and the callback site, closed after the
 * suite. The answer is filled in by the before hook, so read its fields inside hooks and tests.
 * The browser starts first: when it cannot (CI without Chromium) nothing else is left running.
 */
export function useBrowserEnvironment(serverOptions: Parameters<typeof startTestServer>[0] = {}): BrowserEnvironment {
  const env: Partial<BrowserEnvironment> = {}
  before(async () => {
    Object.assign(env, await startBrowserEnvironment(serverOptions))
  })
  after(() => closeBrowserEnvironment(env))
  return env as BrowserEnvironment
}

/** The browser first: when it cannot start (CI without Chromium) nothing else is left running. */
export async function startBrowserEnvironment(serverOptions: Parameters<typeof startTestServer>[0] = {}): Promise<BrowserEnvironment> {
  const browser = await launchBrowser()
  try {
    const server = await startTestServer(serverOptions)
    const site = await startCallbackSite()
    return { browser, server, site }
  } catch (error) {
    await browser.close()
    throw error
  }
}

export async function closeBrowserEnvironment(env: Partial<BrowserEnvironment>): Promise<void> {
  await env.browser?.close()
  await env.site?.close()
  await env.server?.close()
}
