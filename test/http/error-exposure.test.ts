import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { E } from '../../src/errors/catalogue.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { buildTestApp } from '../helpers/test-app.ts'

const SECRET = 'sk_live_9f8e7d6c5b4a3210deadbeefcafef00d'

// A 5xx is our fault, and whatever text it was thrown with (a driver's message, a connection
// string, a key) is for the log only: the client gets the catalogue's generic message.
describe('errors never expose more than they mean to', () => {
  test('a 5xx thrown with a secret-looking message answers the generic text; a 4xx keeps its own wording', async () => {
    const testApp = await buildTestApp()
    const { app } = testApp
    app.get('/test/service-5xx', async () => {
      throw new ServiceError(E.internalError, { message: `connection to postgres://admin:${SECRET}@db failed` })
    })
    app.get('/test/service-503', async () => {
      throw new ServiceError(E.overCapacity, { message: `redis password ${SECRET} refused` })
    })
    app.get('/test/plain-error', async () => {
      throw new Error(`unexpected: ${SECRET}`)
    })
    app.get('/test/service-4xx', async () => {
      throw new ServiceError(E.invalidParameter, { message: 'The parameter screen_name is invalid.' })
    })
    try {
      await app.listen({ host: '127.0.0.1', port: 0 })
      const address = app.server.address()
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
      const cases: Array<[string, number, { code: number; message: string }]> = [
        ['/test/service-5xx', 500, { code: 131, message: 'Internal error' }],
        ['/test/service-503', 503, { code: 130, message: 'Over capacity' }],
        ['/test/plain-error', 500, { code: 131, message: 'Internal error' }],
        ['/test/service-4xx', 400, { code: 1003, message: 'The parameter screen_name is invalid.' }],
      ]
      for (const [path, status, error] of cases) {
        const answer = await fetch(`${base}${path}`)
        const text = await answer.text()
        assert.equal(answer.status, status, path)
        assert.deepEqual(JSON.parse(text), { errors: [error] }, path)
        assert.ok(!text.includes(SECRET), path)
        assert.ok(![...answer.headers.values()].some((value) => value.includes(SECRET)), path)
      }
    } finally {
      await testApp.close()
    }
  })
})
