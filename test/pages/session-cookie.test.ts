// The session cookie's format (src/pages/session.ts): what a signed value must look like to count
// as a CSRF value or a session claim, and when the cookie gets a Max-Age. The cookie is signed, so
// only the service writes it; a value of another shape (an older format, a bug) is never trusted.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import cookie from '@fastify/cookie'
import Fastify, { type FastifyInstance } from 'fastify'
import { readSession, writeSession, SESSION_COOKIE } from '../../src/pages/session.ts'

const SECRET = 'session-cookie-test-secret-0123456789'
const CSRF = 'C'.repeat(32)
const SESSION_ID = 'S'.repeat(32)

describe('the session cookie', () => {
  let app: FastifyInstance
  before(async () => {
    app = Fastify()
    await app.register(cookie, { secret: SECRET })
    app.get('/read', async (request) => readSession(request) ?? null)
    app.get<{ Querystring: { claim?: string; lifetime?: string } }>('/write', async (request, reply) => {
      const claim = request.query.claim ? { userId: '5', sessionId: SESSION_ID, generation: 2 } : undefined
      writeSession(request, reply, { csrf: CSRF, claim }, request.query.lifetime ? Number(request.query.lifetime) : undefined)
      return 'ok'
    })
  })
  after(() => app.close())

  const read = async (value: string) => {
    const answer = await app.inject({ method: 'GET', url: '/read', cookies: { [SESSION_COOKIE]: app.signCookie(value) } })
    return JSON.parse(answer.body) as unknown
  }

  test('a well-formed claim is read whole: 1 to 20 digits of person, 32 letters and digits of session, 1 to 9 digits of generation', async () => {
    assert.deepEqual(await read(`${CSRF}:5:${SESSION_ID}:2`), { csrf: CSRF, claim: { userId: '5', sessionId: SESSION_ID, generation: 2 } })
    const longest = `${CSRF}:${'9'.repeat(20)}:${SESSION_ID}:${'9'.repeat(9)}`
    assert.deepEqual(await read(longest), { csrf: CSRF, claim: { userId: '9'.repeat(20), sessionId: SESSION_ID, generation: 999_999_999 } })
    assert.deepEqual(await read(`${CSRF}:5:${SESSION_ID}:12`), { csrf: CSRF, claim: { userId: '5', sessionId: SESSION_ID, generation: 12 } })
  })

  test('a claim with any part out of shape is no claim: the CSRF value alone', async () => {
    const parts = (userId: string, sessionId: string, generation: string) => `${CSRF}:${userId}:${sessionId}:${generation}`
    for (const value of [
      parts('x5', SESSION_ID, '2'),
      parts('5x', SESSION_ID, '2'),
      parts('9'.repeat(21), SESSION_ID, '2'),
      parts('5', `x${SESSION_ID}`, '2'),
      parts('5', `${SESSION_ID}x`, '2'),
      parts('5', SESSION_ID.slice(1), '2'),
      parts('5', SESSION_ID, 'x2'),
      parts('5', SESSION_ID, '2x'),
      parts('5', SESSION_ID, '9'.repeat(10)),
      `${CSRF}:5:${SESSION_ID}`,
      `${CSRF}:5`,
    ]) {
      assert.deepEqual(await read(value), { csrf: CSRF }, value)
    }
    assert.deepEqual(await read(CSRF), { csrf: CSRF })
  })

  test('a CSRF value out of shape is no session at all', async () => {
    for (const value of [`x${CSRF}`, `${CSRF}x`, CSRF.slice(1), `x${CSRF}:5:${SESSION_ID}:2`, `${CSRF}x:5:${SESSION_ID}:2`]) {
      assert.equal(await read(value), null, value)
    }
    const unsigned = await app.inject({ method: 'GET', url: '/read', cookies: { [SESSION_COOKIE]: CSRF } })
    assert.equal(JSON.parse(unsigned.body), null, 'an unsigned value')
  })

  test('Max-Age only for a signed-in session given a lifetime', async () => {
    const maxAge = async (query: string) => (await app.inject({ method: 'GET', url: `/write?${query}` })).cookies.find((c) => c.name === SESSION_COOKIE)?.maxAge
    assert.equal(await maxAge('claim=1&lifetime=600'), 600)
    assert.equal(await maxAge('claim=1'), undefined)
    assert.equal(await maxAge('lifetime=600'), undefined)
    assert.equal(await maxAge(''), undefined)
  })
})
