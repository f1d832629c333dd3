import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page, type Response } from 'playwright-core'

/**
 * Debian's Chromium, driven by playwright-core over the DevTools protocol. The two must speak the
 * same protocol version: playwright-core 1.64 is built against Chromium 156, and Debian bookworm
 * ships 156 (.ci/run installs it with apt). LATCHKEY_TEST_CHROMIUM points at another binary.
 */
export const CHROMIUM_PATH = process.env.LATCHKEY_TEST_CHROMIUM || '/usr/bin/chromium'

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** The viewport of every page, and so of the screenshots under docs/screenshots. */
export const VIEWPORT = { width: 1000, height: 800 }

/**
 * Why the browser suites are skipped, or undefined when they run. Only a machine without Chromium,
 * outside CI, skips; under CI=true a missing browser makes the suites fail.
 */
export const skipReason: string | undefined =
  existsSync(CHROMIUM_PATH) || process.env.CI === 'true'
    ? undefined
    : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium); the browser tests run only where it is installed`

/**
 * A headless Chromium. playwright-core's launch() gives every browser a fresh, throwaway user-data-dir
 * of its own, so nothing carries over from an earlier run.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`CI=true and no Chromium at ${CHROMIUM_PATH}: the browser tests must run in CI (.ci/run installs it)`)
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 })
}

/** A new person at a new browser: a fresh context (no cookies) and one tab. */
export async function newPerson(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, locale: 'en-US' })
  context.setDefaultTimeout(15_000)
  return context.newPage()
}

/**
 * Clicks a submit button and waits for the page the form leads to (after any redirects); returns
 * that document's response. The first response of the navigation, for the status of a redirect, is
 * reachable through response.request().redirectedFrom().
 */
export async function submitWith(page: Page, selector: string): Promise<Response> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click(selector)])
  assert.ok(response, `pressing ${selector} loads a page`)
  return response
}

/** Opens a URL and returns its document's response. */
export async function open(page: Page, url: string): Promise<Response> {
  const response = await page.goto(url)
  assert.ok(response, `${url} loads a page`)
  return response
}

/** The visible text of the page's <main> (or <body>), whitespace collapsed. */
export async function mainText(page: Page): Promise<string> {
  const main = (await page.locator('main').count()) > 0 ? page.locator('main') : page.locator('body')
  return (await main.innerText()).replace(/\s+/g, ' ').trim()
}

const require = createRequire(import.meta.url)
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

/**
 * Runs axe-core in the page and fails on any violation, whatever its impact (a moderate one, such as
 * content outside every landmark, is still a page some people cannot find their way in). The pages' CSP
 * (default-src 'none') rightly refuses an injected <script>, which is what page.addScriptTag adds;
 * so axe is evaluated through the DevTools protocol instead, which CSP does not govern. The page
 * itself runs under its real headers, CSP included.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const hasAxe = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === 'object')
  if (!hasAxe) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe
    const result = await axe.run()
    return result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target })) }))
  })
  const described = violations.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`)
  assert.deepEqual(described, [], `axe-core finds no violation on ${what}`)
}
