import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { callbackSource, contentSecurityPolicy } from '../../src/pages/reply.ts'
import { createHash } from 'node:crypto'
import { SCRIPT, SCRIPT_HASH, STYLE_HASH, layout } from '../../src/pages/views/layout.ts'
import { html } from '../../src/pages/views/html.ts'

describe('the pages Content-Security-Policy', () => {
  test("lets a consent form lead to its own origin and to the callback's, which the redirect goes to", () => {
    assert.match(contentSecurityPolicy({ kind: 'consent', callback: 'https://app.example:8443/cb?x=1' }), /form-action 'self' https:\/\/app\.example:8443$/)
    assert.match(contentSecurityPolicy({ kind: 'consent', callback: 'myapp://callback' }), /form-action 'self' myapp:$/)
    assert.match(contentSecurityPolicy({ kind: 'consent', callback: 'oob' }), /form-action 'self'$/)
  })

  test('names an http callback by its origin, an IPv6 one too; a host a CSP cannot say leaves the directive out, with no empty separator', () => {
    assert.equal(callbackSource('http://client.example/cb'), 'http://client.example')
    assert.equal(callbackSource('http://[::1]:8080/cb'), 'http://[::1]:8080')
    assert.equal(callbackSource('https://[2001:db8::7]/cb'), 'https://[2001:db8::7]')
    assert.equal(callbackSource('https://exa_mple.example/cb'), undefined)
    const csp = contentSecurityPolicy({ kind: 'consent', callback: 'https://exa_mple.example/cb' })
    assert.ok(csp.endsWith("frame-ancestors 'none'"), csp)
    assert.doesNotMatch(csp, /;\s*;|;\s*$|undefined/)
  })

  test('allows no form at all on pages without one', () => {
    assert.match(contentSecurityPolicy({ kind: 'none' }), /form-action 'none'/)
  })

  test('omits form-action rather than write a source it cannot express', () => {
    assert.equal(callbackSource('not a url'), undefined)
    assert.doesNotMatch(contentSecurityPolicy({ kind: 'consent', callback: 'not a url' }), /form-action/)
  })

  test('always forbids framing, other origins and every script but the one Copy script, by its hash', () => {
    const csp = contentSecurityPolicy({ kind: 'none' })
    assert.equal(SCRIPT_HASH, `'sha256-${createHash('sha256').update(SCRIPT, 'utf8').digest('base64')}'`)
    assert.ok(csp.startsWith(`default-src 'none'; style-src ${STYLE_HASH}; script-src ${SCRIPT_HASH}; base-uri 'none'; frame-ancestors 'none'`), csp)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:|\*/)
  })
})

describe('the page layout', () => {
  test('its one stylesheet is the text the CSP allows by hash, and keeps focus visible', () => {
    const page = layout('T', html`<h1>T</h1>`)
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1] ?? ''
    assert.equal(STYLE_HASH, `'sha256-${createHash('sha256').update(style, 'utf8').digest('base64')}'`)
    assert.match(style, /:focus-visible\{outline:3px solid/)
  })

  test('the content is one <main> landmark, wide only when asked', () => {
    assert.match(layout('T', html`<h1>T</h1>`), /<main>\n<h1>T<\/h1>\n<\/main>/)
    assert.match(layout('T', html`<h1>T</h1>`, { width: 'wide' }), /<main class="wide">\n<h1>T<\/h1>\n<\/main>/)
  })
})
