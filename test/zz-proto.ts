import { chromium } from 'playwright-core'
import { createRequire } from 'node:module'
import { makeApp, makeUser } from '/work/main/test/helpers/fixtures.ts'
import { startTestServer } from '/work/main/test/helpers/test-app.ts'
import { signedFetch } from '/work/main/test/helpers/oauth1-client.ts'
const require = createRequire(import.meta.url)
const s = await startTestServer()
const app = await makeApp(s.domain, { callbackUrls: ['oob'] as any }).catch(async () => makeApp(s.domain))
const a = await signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${s.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
console.log(a.status, a.form)
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] })
console.log('version', browser.version())
const ctx = await browser.newContext({ viewport: { width: 1000, height: 800 } })
const page = await ctx.newPage()
const r = await page.goto(`${s.url}/oauth/authorize?oauth_token=${a.form.oauth_token}`)
console.log(r?.status(), await page.title())
try { await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') }); console.log('addScriptTag ok', await page.evaluate(() => typeof (window as any).axe)) } catch (e) { console.log('addScriptTag failed', String(e).slice(0, 300)) }
const { readFileSync } = await import('node:fs')
await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'),'utf8'))
const res = await page.evaluate(async () => { const r = await (window as any).axe.run(); return r.violations.map((v: any) => [v.id, v.impact, v.nodes.length]) })
console.log('axe', res)
await browser.close(); await s.close()
