// /docs/ serves the user's documents (USER_DOCUMENTS: the README and how to call, configure, deploy
// and watch the service) as HTML pages under the pages' CSP, and none of the contributors' pages.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { USER_DOCUMENTS } from '../../src/pages/docs-routes.ts'
import { contentSecurityPolicy } from '../../src/pages/reply.ts'
import { buildTestApp } from '../helpers/test-app.ts'

const home = { demo: () => undefined, adminUrl: () => undefined }
const CONTRIBUTORS_PAGES = ['testing.md', 'performance.md', 'mutation-testing.md', 'decisions.md', 'checklist.md', 'ARCHITECTURE.md']
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1)
const headingOf = (path: string) => /^# (.+)$/m.exec(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'))![1]!

describe('/docs/', () => {
  test('lists the user documents, the README first, each a readable HTML page under the CSP, with no script, style attribute or image', async (ctx) => {
    const t = await buildTestApp({ http: { home } })
    ctx.after(() => t.close())
    const index = await t.app.inject({ method: 'GET', url: '/docs/' })
    assert.equal(index.statusCode, 200)
    assert.match(index.body, /<title>Documentation · Latchkey<\/title>/)
    const listed = [...index.body.matchAll(/<a href="\/docs\/([^"]+)">/g)].map((m) => m[1])
    assert.deepEqual(listed, USER_DOCUMENTS.map(nameOf))
    assert.equal(listed[0], 'README.md')
    for (const path of USER_DOCUMENTS) {
      const page = await t.app.inject({ method: 'GET', url: `/docs/${nameOf(path)}` })
      assert.equal(page.statusCode, 200, path)
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8', path)
      assert.equal(page.headers['content-security-policy'], contentSecurityPolicy({ kind: 'none' }), path)
      // A heading that is the brand itself is the whole title (layout.ts writes the brand once).
      const heading = headingOf(path)
      assert.ok(page.body.includes(`<title>${heading === 'Latchkey' ? heading : `${heading} · Latchkey`}</title>`), `${path}: its heading is the title`)
      assert.doesNotMatch(page.body, /<script|\sstyle=|<img|\son\w+=/i, path)
    }
  })

  test('the README explains the console, the admin API and the CLI, and its links lead to the served documents', async (ctx) => {
    const t = await buildTestApp({ http: { home } })
    ctx.after(() => t.close())
    const readme = await t.app.inject({ method: 'GET', url: '/docs/README.md' })
    assert.equal(readme.statusCode, 200)
    for (const text of ['/console', '/admin/v1', 'admin-token create']) assert.ok(readme.body.includes(text), text)
    assert.match(readme.body, /<a href="\/docs\/api\.md">/)
    assert.doesNotMatch(readme.body, /href="[^"]*(testing|performance|decisions|checklist|ARCHITECTURE)[^"]*"/, 'no link to a contributors\' page')
  })

  test("the contributors' pages and anything else are not served: a 404 page that names nothing", async (ctx) => {
    const t = await buildTestApp({ http: { home } })
    ctx.after(() => t.close())
    const urls = [...CONTRIBUTORS_PAGES.map((name) => `/docs/${name}`), '/docs/missing.md', '/docs/..%2Fpackage.json', '/docs/%2E%2E%2FREADME.md', '/docs/screenshots', '/docs/api.md%00', '/docs/openapi-admin.json']
    for (const url of urls) {
      const refused = await t.app.inject({ method: 'GET', url })
      assert.equal(refused.statusCode, 404, url)
      assert.doesNotMatch(refused.body, /"name": "latchkey"|# |Mutation testing|equivalent/i, url)
    }
    // The twin: a served document answers.
    assert.equal((await t.app.inject({ method: 'GET', url: '/docs/api.md' })).statusCode, 200)
  })
})
