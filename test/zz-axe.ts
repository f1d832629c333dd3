import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { makeApp, makeUser } from './helpers/fixtures.ts'
import { startTestServer } from './helpers/test-app.ts'
import { launchBrowser, newPerson, open, submitWith } from './e2e/browser/browser.ts'
import { getRequestToken } from './e2e/browser/oauth.ts'
const require = createRequire(import.meta.url)
const src = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
const s = await startTestServer(); const b = await launchBrowser()
const app = await makeApp(s.domain, { name: 'Birdwatch', website: 'https://b.example' })
const { user, password } = await makeUser(s.domain)
const page = await newPerson(b)
const all = async (label: string) => { await page.evaluate(src); console.log(label, JSON.stringify(await page.evaluate(async () => ((await (globalThis as any).axe.run()).violations as any[]).map((v) => [v.id, v.impact]))), 'incomplete:', JSON.stringify(await page.evaluate(async () => ((await (globalThis as any).axe.run()).incomplete as any[]).map((v) => [v.id, v.impact])))) }
const rt = await getRequestToken(s, app, 'oob')
await open(page, `${s.url}/oauth/authorize?oauth_token=${rt.token}`); await all('consent-out')
await page.fill('#username', user.screenName); await page.fill('#password', 'wrongwrong'); await submitWith(page, '#allow'); await all('wrong')
await page.fill('#password', password); await submitWith(page, '#allow'); await all('pin')
const rt2 = await getRequestToken(s, app, 'oob')
await open(page, `${s.url}/oauth/authorize?oauth_token=${rt2.token}`); await all('consent-in')
await open(page, `${s.url}/oauth/authorize?oauth_token=zz`); await all('error')
await b.close(); await s.close()
