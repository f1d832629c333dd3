import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deriveScreenName } from '../../../src/domain/accounts/screen-names.ts'

test('a claim becomes a screen name that obeys X rule, or none', () => {
  const cases: Array<[string, string | undefined]> = [
    ['ada', 'ada'],
    ['Ada.Lovelace@example.org', 'Ada_Lovelace'],
    ['José Ñúñez', 'Jose_Nunez'],
    ['  --grace--hopper--  ', 'grace_hopper'],
    ['a_very_long_preferred_username', 'a_very_long_pre'],
    ['abcdefghijklmn.x', 'abcdefghijklmn'],
    ['___', undefined],
    ['李小龍', undefined],
    ['@example.org', undefined],
    ['', undefined],
  ]
  for (const [claim, expected] of cases) {
    const derived = deriveScreenName(claim)
    assert.equal(derived, expected, claim)
    if (derived) assert.match(derived, /^[A-Za-z0-9_]{1,15}$/)
  }
})
