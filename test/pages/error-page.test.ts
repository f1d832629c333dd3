import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import pino from 'pino'
import { pagesPlugin } from '../../src/pages/plugin.ts'
import type { SignInThrottle } from '../../src/domain/sign-in.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openTestDomain } from '../helpers/test-app.ts'
import { makeRequestToken, newBrowser, openAndPress } from './helpers.ts'

const brokenThrottle: SignInThrottle = {
  admit: async () => {
    throw new Error('limiter store password=hunter2 unreachable')
  },
  succeeded: async () => {},
  refusal: async () => ({ waitMs: 0, isFirst: true }),
}

describe('the pages error handler', () => {
  test('an unexpected failure shows a plain 500 page with no detail, and logs it with the request id', async (ctx) => {
    const t = await openTestDomain()
    const logLines: string[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) })
    // The same cast as src/app.ts: a pino Logger instance narrows Fastify's logger type.
    const app = Fastify({ loggerInstance: logger, genReqId: () => 'req-42' }) as unknown as FastifyInstance
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
    const http = { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret: 'x'.repeat(32) }
    await app.register(pagesPlugin({ domain: t.domain, http, logger }, { throttle: brokenThrottle }))
    ctx.after(async () => {
      await app.close()
      await t.close()
    })

    const { user, password } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    const response = await openAndPress(app, newBrowser(), '/oauth/authorize', rt.token, 'allow', { username: user.screenName, password })
    assert.equal(response.statusCode, 500)
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(response.body, /Something went wrong on our side/)
    assert.match(response.body, /Reference: req-42/)
    assert.doesNotMatch(response.body, /hunter2|limiter store/)
    const logged = logLines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'page failed')
    assert.equal(logged?.reqId, 'req-42')
    assert.ok(!logLines.join('').includes(password), 'the password is never logged')
  })
})
