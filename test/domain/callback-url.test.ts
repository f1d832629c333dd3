import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { matchCallback, parseCallbackUrl } from '../../src/domain/callback-url.ts'

const registered = ['https://app.example/cb', 'myapp://cb']

describe('matchCallback', () => {
  test('accepts the registered URL itself', () => {
    assert.equal(matchCallback(registered, 'https://app.example/cb'), 'https://app.example/cb')
  })

  test('accepts the registered URL with a query of its own, and keeps that query', () => {
    assert.equal(matchCallback(registered, 'https://app.example/cb?state=xyz&n=1'), 'https://app.example/cb?state=xyz&n=1')
  })

  test('compares the host without regard to case', () => {
    assert.equal(matchCallback(registered, 'https://APP.Example/cb'), 'https://app.example/cb')
  })

  test('treats the default port written out as the same port', () => {
    assert.equal(matchCallback(registered, 'https://app.example:443/cb'), 'https://app.example/cb')
  })

  test('accepts an app\'s own scheme', () => {
    assert.equal(matchCallback(registered, 'myapp://cb?oauth=1'), 'myapp://cb?oauth=1')
  })

  test('refuses another path', () => {
    for (const url of ['https://app.example/cb2', 'https://app.example/cb/', 'https://app.example/', 'https://app.example/CB']) {
      assert.equal(matchCallback(registered, url), undefined, url)
    }
  })

  test('refuses another port', () => {
    assert.equal(matchCallback(registered, 'https://app.example:8443/cb'), undefined)
  })

  test('refuses another host, including one that merely contains the registered host', () => {
    for (const url of ['https://evil.example/cb', 'https://app.example.evil.example/cb', 'https://app.example@evil.example/cb']) {
      assert.equal(matchCallback(registered, url), undefined, url)
    }
  })

  test('refuses another scheme', () => {
    for (const url of ['http://app.example/cb', 'otherapp://cb', 'javascript://app.example/cb']) {
      assert.equal(matchCallback(registered, url), undefined, url)
    }
  })

  test('refuses what is not an absolute URL', () => {
    for (const url of ['/cb', 'app.example/cb', '', 'https://app.example/cb#frag', 'https://app.example/c b']) {
      assert.equal(matchCallback(registered, url), undefined, JSON.stringify(url))
    }
  })

  test('compares an app\'s own scheme\'s host without regard to case', () => {
    // The URL parser lower-cases the host of http and https only; a custom scheme's host is kept as written.
    assert.equal(matchCallback(['myapp://cb'], 'myapp://CB'), 'myapp://CB')
    assert.equal(matchCallback(['myapp://CB'], 'myapp://cb?x=1'), 'myapp://cb?x=1')
  })

  test('takes an empty path as /, as for http', () => {
    // myapp://cb has the path '' and myapp://cb/ the path '/'.
    assert.equal(matchCallback(['myapp://cb'], 'myapp://cb/'), 'myapp://cb/')
    assert.equal(matchCallback(['myapp://cb/'], 'myapp://cb'), 'myapp://cb')
    assert.equal(matchCallback(['myapp://cb/x'], 'myapp://cb'), undefined)
  })

  test('skips a registered entry that is not a usable URL and goes on to the next', () => {
    for (const unusable of ['not a url', 'javascript:alert(1)', 'https://app.example/cb#frag']) {
      assert.equal(matchCallback([unusable, 'https://app.example/cb'], 'https://app.example/cb?s=1'), 'https://app.example/cb?s=1', unusable)
    }
    assert.equal(matchCallback(['https://app.example/cb#frag'], 'https://app.example/cb'), undefined)
  })

  test('matches nothing when no callback is registered', () => {
    assert.equal(matchCallback([], 'https://app.example/cb'), undefined)
  })
})

describe('parseCallbackUrl', () => {
  test('refuses schemes that run script or read local data', () => {
    const urls = ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:msgbox', 'file:///etc/passwd', 'JavaScript:alert(1)']
    urls.push('blob:https://app.example/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', 'about:blank', 'ABOUT:srcdoc')
    for (const url of urls) {
      assert.equal(parseCallbackUrl(url), undefined, url)
    }
  })

  test('refuses a URL with a user name or password', () => {
    for (const url of ['https://user:pw@app.example/cb', 'https://user@app.example/cb', 'https://:pw@app.example/cb', 'myapp://user@cb']) {
      assert.equal(parseCallbackUrl(url), undefined, url)
    }
  })

  test('accepts up to 2000 characters', () => {
    const base = 'https://app.example/cb?pad='
    const longest = base + 'a'.repeat(2000 - base.length)
    assert.equal(parseCallbackUrl(longest)?.href, longest)
    assert.equal(parseCallbackUrl(`${longest}a`), undefined)
  })

  test('refuses control characters and spaces, which the URL parser would drop or escape', () => {
    for (const char of ['\u0000', '\t', '\n', '\r', '\u001f', ' ', '\u007f']) {
      for (const url of [`https://app.example/c${char}b`, `${char}https://app.example/cb`, `https://app.example/cb${char}`]) {
        assert.equal(parseCallbackUrl(url), undefined, JSON.stringify(url))
      }
    }
    assert.equal(parseCallbackUrl('https://app.example/c%20b?x=%09')?.href, 'https://app.example/c%20b?x=%09')
  })

  test('accepts an app\'s own scheme without a host (RFC 8252 §7.1 private-use scheme)', () => {
    for (const url of ['com.example.app:/oauth2redirect/example-provider', 'myapp:cb', 'myapp:///cb']) {
      assert.equal(parseCallbackUrl(url)?.href, url, url)
    }
  })

  test('gives http and https URLs the host the URL parser finds', () => {
    // The parser finds a host even after extra slashes or none; it refuses http:// with none at all.
    assert.equal(parseCallbackUrl('http://')?.href, undefined)
    assert.equal(parseCallbackUrl('https:///app.example/cb')?.hostname, 'app.example')
    assert.equal(parseCallbackUrl('https:app.example/cb')?.hostname, 'app.example')
  })
})
