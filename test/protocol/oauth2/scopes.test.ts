import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { OFFLINE_ACCESS, SCOPES, parseScopes, scopeString, writeScopes } from '../../../src/protocol/oauth2/scopes.ts'

// twitter-behaviour §9, in X's order.
const X_SCOPES =
  'tweet.read tweet.write tweet.moderate.write users.read users.email follows.read follows.write offline.access space.read mute.read mute.write like.read like.write list.read list.write block.read block.write bookmark.read bookmark.write dm.read dm.write media.write'

describe("X's OAuth 2.0 scopes", () => {
  test('every scope X documents is known, and no other', () => {
    assert.deepEqual(Object.keys(SCOPES), X_SCOPES.split(' '))
    assert.deepEqual(parseScopes(X_SCOPES), { scopes: X_SCOPES.split(' ') })
  })

  test('a space-separated list: order, repeats and extra spaces change nothing', () => {
    assert.deepEqual(parseScopes('users.read  tweet.read users.read '), { scopes: ['tweet.read', 'users.read'] })
    assert.equal(scopeString(['tweet.read', 'users.read']), 'tweet.read users.read')
  })

  test('the first unknown word is named; case matters; an empty list is no scope', () => {
    assert.deepEqual(parseScopes('tweet.read Tweet.write dm.send'), { unknown: 'Tweet.write' })
    assert.deepEqual(parseScopes('tweet.read,users.read'), { unknown: 'tweet.read,users.read' })
    assert.deepEqual(parseScopes(''), { scopes: [] })
  })

  test('the write scopes are those that act for the person', () => {
    assert.deepEqual(
      writeScopes(X_SCOPES.split(' ') as never),
      ['tweet.write', 'tweet.moderate.write', 'follows.write', 'mute.write', 'like.write', 'list.write', 'block.write', 'bookmark.write', 'dm.write', 'media.write'],
    )
    assert.deepEqual(writeScopes(['tweet.read', 'users.read', 'offline.access']), [])
  })

  test("the scope that makes a grant refreshable is X's offline.access", () => {
    assert.equal(OFFLINE_ACCESS, 'offline.access')
    assert.deepEqual(parseScopes('tweet.read offline.access'), { scopes: ['tweet.read', OFFLINE_ACCESS] })
  })
})
