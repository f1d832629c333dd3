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

  test('matches nothing when no callback is registered', () => {
    assert.equal(matchCallback([], 'https://app.example/cb'), undefined)
  })
})

describe('parseCallbackUrl', () => {
  test('refuses schemes that run script or read local data', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:msgbox', 'file:///etc/passwd', 'JavaScript:alert(1)']) {
      assert.equal(parseCallbackUrl(url), undefined, url)
    }
  })

  test('refuses a URL with a user name or password', () => {
    assert.equal(parseCallbackUrl('https://user:pw@app.example/cb'), undefined)
  })
})
