import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ServiceError } from '../../../src/errors/service-error.ts'
import { parseBasicCredentials } from '../../../src/protocol/oauth2/basic-credentials.ts'

const is99 = (error: unknown): boolean => error instanceof ServiceError && error.code === 99 && error.status === 403
const basic = (raw: string, scheme = 'Basic'): string => `${scheme} ${Buffer.from(raw, 'utf8').toString('base64')}`

describe('parseBasicCredentials (RFC 7617 §2, RFC 6749 §2.3.1)', () => {
  test('returns undefined without a header or for another scheme', () => {
    assert.equal(parseBasicCredentials(undefined), undefined)
    assert.equal(parseBasicCredentials(''), undefined)
    assert.equal(parseBasicCredentials('Bearer AAAA%2FAAA%3DAAAA'), undefined)
    assert.equal(parseBasicCredentials('OAuth oauth_token="t"'), undefined)
  })

  test('reads the credentials of Twitter’s app-only documentation example', () => {
    assert.deepEqual(
      parseBasicCredentials(
        'Basic eHZ6MWV2RlM0d0VFUFRHRUZQSEJvZzpMOHFxOVBaeVJnNmllS0dFS2hab2xHQzB2SldMdzhpRUo4OERSZHlPZw==',
      ),
      { clientId: 'xvz1evFS4wEEPTGEFPHBog', clientSecret: 'L8qq9PZyRg6ieKGEKhZolGC0vJWLw8iEJ88DRdyOg' },
    )
  })

  test('matches the scheme case-insensitively', () => {
    for (const scheme of ['basic', 'BASIC', 'bAsIc']) {
      assert.deepEqual(parseBasicCredentials(basic('id:secret', scheme)), { clientId: 'id', clientSecret: 'secret' })
    }
  })

  test('form-decodes each half, as twitter-api-v2 encodes them', () => {
    const raw = `${encodeURIComponent('my id:é')}:${encodeURIComponent('s3cr%t+/')}`
    assert.deepEqual(parseBasicCredentials(basic(raw)), { clientId: 'my id:é', clientSecret: 's3cr%t+/' })
    assert.deepEqual(parseBasicCredentials(basic('a+b:c+d')), { clientId: 'a b', clientSecret: 'c d' })
  })

  test('splits at the first colon, so a raw secret may contain colons and be empty', () => {
    assert.deepEqual(parseBasicCredentials(basic('id:sec:ret')), { clientId: 'id', clientSecret: 'sec:ret' })
    assert.deepEqual(parseBasicCredentials(basic('id:')), { clientId: 'id', clientSecret: '' })
  })

  test('keeps a half raw when its percent-escapes are malformed', () => {
    assert.deepEqual(parseBasicCredentials(basic('id:100%pure+')), { clientId: 'id', clientSecret: '100%pure+' })
  })

  test('rejects malformed credentials with 403/99', () => {
    for (const header of [
      'Basic',
      'Basic ',
      'Basic !!!!',
      'Basic aWQ6c2VjcmV0=', // bad padding
      'Basic aWQ6c2VjcmV', // unpadded
      'Basic aWQ6 c2VjcmV0',
      basic('no-colon'),
      basic(':secret'),
      `Basic ${Buffer.from([0x69, 0x64, 0x3a, 0xff, 0xfe]).toString('base64')}`, // not UTF-8
    ]) {
      assert.throws(() => parseBasicCredentials(header), is99, header)
    }
  })
})

describe('parseBasicCredentials: the edges of the header, and what the operator log says', () => {
  const b64 = (raw: string) => Buffer.from(raw, 'utf8').toString('base64')

  test('whitespace around the header is ignored', () => {
    assert.deepEqual(parseBasicCredentials(`  Basic ${b64('id:secret')}  `), { clientId: 'id', clientSecret: 'secret' })
  })

  test('characters outside base64 before or after the credentials are refused, not skipped', () => {
    assert.deepEqual(parseBasicCredentials(`Basic ${b64('id:secret')}`), { clientId: 'id', clientSecret: 'secret' })
    for (const header of [`Basic !!!!${b64('id:secret')}`, `Basic ${b64('id:secret')}!!!!`]) assert.throws(() => parseBasicCredentials(header), is99, header)
  })

  test("each refusal's log detail says why (the client sees only 403/99)", () => {
    const detailOf = (header: string) => {
      try {
        parseBasicCredentials(header)
      } catch (error) {
        assert.ok(is99(error), String(error))
        return (error as ServiceError).detail
      }
      assert.fail(`expected a 403/99 for ${header}`)
    }
    assert.equal(detailOf('Basic !!!!'), 'Basic credentials: not base64')
    assert.equal(detailOf(`Basic ${Buffer.from([0x69, 0x64, 0x3a, 0xff]).toString('base64')}`), 'Basic credentials: not UTF-8')
    assert.equal(detailOf(basic('no-colon')), 'Basic credentials: no colon')
    assert.equal(detailOf(basic(':secret')), 'Basic credentials: empty client id')
  })
})
