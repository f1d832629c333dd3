import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError } from '../../src/config/load.ts'
import { parseOidcProviders } from '../../src/config/oidc-providers.ts'

const SECRET = 'very-secret-value-42'
const good = { id: 'corp-sso', issuer: 'https://sso.example.com/realms/main', client_id: 'latchkey', client_secret: SECRET, display_name: 'Corp SSO' }
const parse = (value: unknown) => parseOidcProviders(JSON.stringify(value), 'providers.json')

function refusedWith(value: unknown, pattern: RegExp) {
  assert.throws(
    () => (typeof value === 'string' ? parseOidcProviders(value, 'providers.json') : parse(value)),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.match(error.message, pattern)
      assert.doesNotMatch(error.message, new RegExp(SECRET), 'the client secret is never in a message')
      return true
    },
  )
}

describe('--oidc-providers', () => {
  test('a provider takes the defaults: scopes, claims, and creating people just in time', () => {
    assert.deepEqual(parse([good]), [
      { id: 'corp-sso', issuer: good.issuer, clientId: 'latchkey', clientSecret: SECRET, displayName: 'Corp SSO', scopes: 'openid profile email', screenNameClaim: 'preferred_username', nameClaim: 'name', link: { create: true }, tokenEndpointAuthMethod: 'client_secret_basic' },
    ])
    assert.deepEqual(parse([{ ...good, link: { match: 'email' } }])[0]?.link, { matchBy: 'email' })
    assert.equal(parse([{ ...good, token_endpoint_auth_method: 'client_secret_post' }])[0]?.tokenEndpointAuthMethod, 'client_secret_post')
  })

  test('each wrong field is named, never with the secret', () => {
    refusedWith('not json', /oidcProviders \(providers\.json\): not JSON/)
    refusedWith({ ...good }, /the file Expected array/)
    refusedWith([{ ...good, id: 'has space' }], /\[0\]\.id must be 1 to 40 letters, digits or hyphens/)
    refusedWith([{ ...good, issuer: 'http://sso.example.com' }], /\[0\]\.issuer must be an https:\/\/ URL/)
    refusedWith([{ ...good, client_secret: '' }], /\[0\]\.client_secret must not be empty/)
    refusedWith([{ ...good, client_id: undefined }], /\[0\]\.client_id Required/)
    refusedWith([{ ...good, scopes: 'profile email' }], /\[0\]\.scopes must include openid/)
    refusedWith([{ ...good, link: { match: 'phone' } }], /\[0\]\.link/)
    refusedWith([{ ...good, link: { match: 'screen_name' } }], /\[0\]\.link/)
    refusedWith([{ ...good, id: 'login' }], /\[0\]\.id must not be login/)
    refusedWith([{ ...good, token_endpoint_auth_method: 'private_key_jwt' }], /\[0\]\.token_endpoint_auth_method/)
    refusedWith([good, { ...good, client_secret: 'x' }], /\[1\]\.id is used twice/)
    refusedWith([{ ...good, extra: SECRET }], /\[0\] Unrecognized key/)
  })

  test('plain http is accepted for a provider on this machine only', () => {
    assert.equal(parse([{ ...good, issuer: 'http://127.0.0.1:9000' }]).length, 1)
    assert.equal(parse([{ ...good, issuer: 'http://localhost:9000/' }]).length, 1)
    refusedWith([{ ...good, issuer: 'http://localhost.evil.example' }], /must be an https/)
  })
})
