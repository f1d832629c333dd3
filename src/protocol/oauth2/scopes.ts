/**
 * X's OAuth 2.0 scopes (twitter-behaviour §9) and what each lets an app do, in the words the consent
 * page shows. `write` scopes need an app whose access level lets it write, as on X.
 */
export const SCOPES = {
  'tweet.read': { write: false, allows: 'See posts, including ones from protected accounts you follow.' },
  'tweet.write': { write: true, allows: 'Post and repost for you.' },
  'tweet.moderate.write': { write: true, allows: 'Hide and unhide replies to your posts.' },
  'users.read': { write: false, allows: 'See your profile and the profiles of other accounts.' },
  'users.email': { write: false, allows: 'See the email address of your account.' },
  'follows.read': { write: false, allows: 'See who you follow and who follows you.' },
  'follows.write': { write: true, allows: 'Follow and unfollow accounts for you.' },
  'offline.access': { write: false, allows: 'Stay connected to your account until you revoke access.' },
  'space.read': { write: false, allows: 'See Spaces.' },
  'mute.read': { write: false, allows: 'See the accounts you muted.' },
  'mute.write': { write: true, allows: 'Mute and unmute accounts for you.' },
  'like.read': { write: false, allows: 'See posts you liked and the likes you can see.' },
  'like.write': { write: true, allows: 'Like and unlike posts for you.' },
  'list.read': { write: false, allows: 'See lists, their members and followers, including private lists you own.' },
  'list.write': { write: true, allows: 'Create and manage lists for you.' },
  'block.read': { write: false, allows: 'See the accounts you blocked.' },
  'block.write': { write: true, allows: 'Block and unblock accounts for you.' },
  'bookmark.read': { write: false, allows: 'See your bookmarks.' },
  'bookmark.write': { write: true, allows: 'Bookmark and remove bookmarks for you.' },
  'dm.read': { write: false, allows: 'See your direct messages.' },
  'dm.write': { write: true, allows: 'Send direct messages for you.' },
  'media.write': { write: true, allows: 'Upload media for you.' },
} as const satisfies Record<string, { write: boolean; allows: string }>

export type Scope = keyof typeof SCOPES

/** The scope that makes a grant refreshable (a refresh token is issued only with it). */
export const OFFLINE_ACCESS: Scope = 'offline.access'

const isScope = (word: string): word is Scope => Object.hasOwn(SCOPES, word)

/**
 * RFC 6749 §3.3: a space-separated list, order and repeats of no meaning. The scopes in the order
 * of SCOPES, or the first word that is not one (undefined for an empty list: a grant needs one).
 */
export function parseScopes(value: string): { scopes: Scope[] } | { unknown: string } {
  const words = value.split(' ').filter((word) => word !== '')
  const bad = words.find((word) => !isScope(word))
  if (bad !== undefined) return { unknown: bad }
  const asked = new Set(words)
  return { scopes: (Object.keys(SCOPES) as Scope[]).filter((scope) => asked.has(scope)) }
}

/** Whether `word` is a scope that needs write access. */
export const isWriteScope = (word: string): boolean => isScope(word) && SCOPES[word].write

/** The scopes that need write access, among `scopes`. */
export const writeScopes = (scopes: readonly Scope[]): Scope[] => scopes.filter(isWriteScope)

/** The scope string of a grant, as token answers and introspection give it. */
export const scopeString = (scopes: readonly string[]): string => scopes.join(' ')
