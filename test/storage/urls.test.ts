import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { isPostgresUrl, redactUrl } from '../../src/storage/urls.ts'

describe('database URLs', () => {
  test('PostgreSQL is told by its scheme alone, in any case', () => {
    for (const url of ['postgres://db/latchkey', 'postgresql://u:p@db:5432/latchkey', 'POSTGRES://db/x', 'PostgreSQL://db/x']) assert.equal(isPostgresUrl(url), true, url)
    for (const url of ['sqlite:latchkey.sqlite', './postgres://not-a-url', 'postgres:/db', 'latchkey.sqlite', 'mysql://db/x', ' postgres://db/x']) assert.equal(isPostgresUrl(url), false, url)
  })

  test('a password never reaches a message: replaced, the rest kept; a URL without one is as given', () => {
    assert.equal(redactUrl('postgres://latchkey:s3cret@db.internal:5432/latchkey?sslmode=require'), 'postgres://latchkey:***@db.internal:5432/latchkey?sslmode=require')
    assert.equal(redactUrl('postgres://latchkey@db.internal/latchkey'), 'postgres://latchkey@db.internal/latchkey')
    assert.equal(redactUrl('redis://:s3cret@127.0.0.1:6379'), 'redis://:***@127.0.0.1:6379')
    // Not a URL the WHATWG parser takes (a port that is not a number): whatever stands before the @ goes.
    assert.equal(redactUrl('postgres://latchkey:s3cret@db:port/latchkey'), 'postgres://***@db:port/latchkey')
    assert.equal(redactUrl('latchkey.sqlite'), 'latchkey.sqlite')
  })
})
