import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { parseFormEncoded, serializeForm } from '../../src/protocol/form.ts'
import { propertyRuns } from '../helpers/property-runs.ts'
import { anyString } from '../helpers/any-string.ts'
import { is215 } from '../helpers/bad-auth-data.ts'


describe('parseFormEncoded', () => {
  test('parses name=value pairs in order', () => {
    assert.deepEqual(parseFormEncoded('b=2&a=1'), [
      ['b', '2'],
      ['a', '1'],
    ])
  })

  test('parses the RFC 5849 §3.4.1.3.1 body, where a piece without = has an empty value and + is a space', () => {
    assert.deepEqual(parseFormEncoded('c2&a3=2+q'), [
      ['c2', ''],
      ['a3', '2 q'],
    ])
  })

  test('keeps repeated names and all their values', () => {
    assert.deepEqual(parseFormEncoded('a=1&b=x&a=2&a=1'), [
      ['a', '1'],
      ['b', 'x'],
      ['a', '2'],
      ['a', '1'],
    ])
  })

  test('skips empty pieces and returns nothing for empty text', () => {
    assert.deepEqual(parseFormEncoded(''), [])
    assert.deepEqual(parseFormEncoded('&&a=1&&'), [['a', '1']])
  })

  test('splits at the first = only and allows empty names and values', () => {
    assert.deepEqual(parseFormEncoded('a==b&=v&n='), [
      ['a', '=b'],
      ['', 'v'],
      ['n', ''],
    ])
  })

  test('decodes names and values, %2B as plus and lower-case hex included', () => {
    assert.deepEqual(parseFormEncoded('c%40=%3D%253D&s=1%2B1%c3%a9'), [
      ['c@', '=%3D'],
      ['s', '1+1é'],
    ])
  })

  test('rejects a malformed escape or bad UTF-8 in a name or value with 215', () => {
    for (const bad of ['a=%G0', 'a%=1', 'a=%5', 'a=1&b=%', 'a=%FF']) {
      assert.throws(() => parseFormEncoded(bad), is215, bad)
    }
  })
})

describe('serializeForm', () => {
  test('writes a request-token response body in the given order', () => {
    const body = serializeForm([
      ['oauth_token', 'Z6eEdO8MOmk394WozF5oKyuAv855l4Mlqo7hhlSLik'],
      ['oauth_token_secret', 'Kd75W4OQfb2oJTV0vzGzeXftVAwgMnEK9MumzYcM'],
      ['oauth_callback_confirmed', 'true'],
    ])
    assert.equal(
      body,
      'oauth_token=Z6eEdO8MOmk394WozF5oKyuAv855l4Mlqo7hhlSLik' +
        '&oauth_token_secret=Kd75W4OQfb2oJTV0vzGzeXftVAwgMnEK9MumzYcM&oauth_callback_confirmed=true',
    )
  })

  test('encodes reserved and non-ASCII characters in names and values', () => {
    assert.equal(serializeForm([['screen name', 'a&b=c+é']]), 'screen%20name=a%26b%3Dc%2B%C3%A9')
  })

  test('round-trips through parseFormEncoded', () => {
    const pair = fc.tuple(anyString(), anyString())
    fc.assert(
      fc.property(fc.array(pair), (pairs) => {
        // A pair whose name and value are both empty serializes to "=", which parses back as ['', ''].
        assert.deepEqual(parseFormEncoded(serializeForm(pairs)), pairs)
      }),
      { numRuns: propertyRuns(300) },
    )
  })
})
