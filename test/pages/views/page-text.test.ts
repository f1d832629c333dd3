// What the pages say, word for word, where a person decides something from it: what an app may do at
// each access level, who made it, which browser a session is, what each settings page is called.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { ConnectedApp } from '../../../src/domain/console/connected-apps.ts'
import type { Consent } from '../../../src/domain/oauth1/authorization.ts'
import { confirmPasswordPage, passwordPage, sessionsPage } from '../../../src/pages/views/account.ts'
import { browserName } from '../../../src/pages/views/browser-name.ts'
import { connectedAppsPage } from '../../../src/pages/views/connected-apps.ts'
import { PASSWORD_ONLY } from '../../../src/pages/sign-in-methods.ts'
import { consentPage } from '../../../src/pages/views/consent.ts'
import { signInPage, signUpPage, urlText } from '../../../src/pages/views/frame.ts'
import { html } from '../../../src/pages/views/html.ts'
import { layout } from '../../../src/pages/views/layout.ts'
import type { AccessLevel, AppRecord, BrowserSessionRecord, UserRecord } from '../../../src/storage/records.ts'

const user: UserRecord = { id: '7', screenName: 'ada', name: 'Ada', passwordHash: 'x', createdAtMs: 0 }

/** The text of each element of this tag inside the section that follows `heading`. */
function listAfter(page: string, heading: string): string[] {
  const start = page.indexOf(heading)
  assert.ok(start >= 0, `"${heading}" is on the page`)
  const list = /<ul>([\s\S]*?)<\/ul>/.exec(page.slice(start))?.[1] ?? ''
  return [...list.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]!)
}

const titleOf = (page: string) => /<title>([^<]*)<\/title>/.exec(page)?.[1]

function consent(level: AccessLevel, app: Partial<AppRecord> = {}, owner: UserRecord | null = user): Consent {
  return {
    app: { id: '1', name: 'Pocket', description: '', website: '', ownerId: '7', callbackUrls: [], ...app } as AppRecord,
    owner: owner ?? undefined,
    requestToken: { token: 't', accessLevel: level, callback: 'oob' } as Consent['requestToken'],
  }
}

const consentOf = (c: Consent) => consentPage({ action: '/oauth/authorize', consent: c, csrfToken: 'c', signedIn: undefined, usernamePrefill: '', forceLogin: false, signInOptions: PASSWORD_ONLY })

describe('the consent page', () => {
  const READ = ['See posts from your timeline, including protected posts you can see.', 'See your profile, your lists and who you follow.']
  const WRITE = ['Post and delete posts for you.', 'Follow, unfollow, like and repost for you.', 'Update your profile.']
  const NEVER = ['See your email address.', 'See or change your password.']
  const LEVELS: Array<[AccessLevel, string[], string[]]> = [
    ['read', READ, ['Post, follow or like for you.', 'Read or send your direct messages.', 'Update your profile.', ...NEVER]],
    ['read-write', [...READ, ...WRITE], ['Read or send your direct messages.', ...NEVER]],
    ['read-write-directmessages', [...READ, ...WRITE, 'Read and send your direct messages.'], NEVER],
  ]
  for (const [level, can, cannot] of LEVELS) {
    test(`says what a ${level} app will and will not be able to do`, () => {
      const page = consentOf(consent(level))
      assert.deepEqual(listAfter(page, 'This app will be able to:'), can)
      assert.deepEqual(listAfter(page, 'It will not be able to:'), cannot)
    })
  }

  test('is titled after the app; names its developer, or an unknown one; a description only when there is one', () => {
    const page = consentOf(consent('read'))
    assert.equal(titleOf(page), 'Authorize Pocket · Latchkey')
    assert.match(page, /<span class="muted">by Ada \(@ada\)<\/span>/)
    assert.doesNotMatch(page, /<p><\/p>/)
    const orphan = consentOf(consent('read', { description: 'Saves things' }, null))
    assert.match(orphan, /<span class="muted">by an unknown developer<\/span>/)
    assert.match(orphan, /<p>Saves things<\/p>/)
  })

  test('offers each other way to sign in as a link back to this page (with its force_login); without password sign-in, no password fields and no Authorize before signing in', () => {
    const methods = [
      { kind: 'oidc', id: 'corp', label: 'Corp SSO' },
      { kind: 'delegation', id: 'login', label: 'Example <Platform>' },
    ] as const
    const c = consent('read')
    const both = consentPage({ action: '/oauth/authenticate', consent: c, csrfToken: 'c', signedIn: undefined, usernamePrefill: '', forceLogin: true, signInOptions: { password: true, methods } })
    assert.match(both, /<a class="button" id="sign_in_with_corp" href="\/login\/oidc\/corp\?return_to=%2Foauth%2Fauthenticate%3Foauth_token%3Dt%26force_login%3Dtrue">Sign in with Corp SSO<\/a>/)
    assert.match(both, /href="\/login\/delegated\?return_to=%2Foauth%2Fauthenticate%3Foauth_token%3Dt%26force_login%3Dtrue">Sign in with Example &lt;Platform&gt;<\/a>/)
    assert.match(both, /name="password"/)
    assert.match(both, /id="allow"/)
    const linksOnly = consentPage({ action: '/oauth/authorize', consent: c, csrfToken: 'c', signedIn: undefined, usernamePrefill: '', forceLogin: false, signInOptions: { password: false, methods } })
    assert.doesNotMatch(linksOnly, /name="password"|name="username"|id="allow"/)
    assert.match(linksOnly, /id="cancel"/)
    assert.doesNotMatch(consentOf(c), /sign_in_with/)
  })

  test('links an http or https website; anything else, a URL or not, is text', () => {
    for (const website of ['http://pocket.example/', 'https://pocket.example/']) {
      assert.match(consentOf(consent('read', { website })), new RegExp(`<a href="${website}" rel="noopener noreferrer nofollow">`), website)
    }
    for (const website of ['not a url', 'ftp://pocket.example/']) {
      const page = consentOf(consent('read', { website }))
      assert.match(page, new RegExp(`<p>Website: ${website}</p>`), website)
    }
  })
})

describe('the connected apps page', () => {
  const app = (overrides: Partial<ConnectedApp>): ConnectedApp => ({ appId: '3', appName: 'Pocket', owner: { name: 'Olive', screenName: 'olive' }, accessLevel: 'read', authorizedAtMs: 0, ...overrides })
  const page = (apps: ConnectedApp[], message?: string) => connectedAppsPage({ csrfToken: 'c', user, apps, message })

  test('names each access level, the developer or an unknown one, and the OAuth 2.0 scopes in plain words', () => {
    const levels: Array<[AccessLevel, string]> = [
      ['read', 'Read'],
      ['read-write', 'Read and write'],
      ['read-write-directmessages', 'Read, write and direct messages'],
    ]
    for (const [accessLevel, said] of levels) assert.match(page([app({ accessLevel })]), new RegExp(`<p>Access: ${said}\\. Authorized`), accessLevel)
    // Only what is known: when it was authorized (its last use is not recorded, so not claimed).
    assert.match(page([app({})]), /<p>Access: Read\. Authorized 1970-01-01 00:00 UTC\.<\/p>/)
    assert.match(page([app({ owner: undefined })]), /By an unknown developer/)
    const scoped = page([app({ scopes: ['users.read', 'made.up'] })])
    assert.deepEqual(listAfter(scoped, 'Through OAuth 2.0 it can:'), ['See your profile and the profiles of other accounts.', 'made.up'])
    assert.doesNotMatch(page([app({})]), /Through OAuth 2.0/)
  })

  test('is titled Connected apps; says what was done only when something was', () => {
    assert.equal(titleOf(page([])), 'Connected apps · Latchkey')
    assert.doesNotMatch(page([]), /role="status"/)
    assert.match(page([], 'Access revoked.'), /<p role="status">Access revoked\.<\/p>/)
  })
})

describe('the account pages', () => {
  const session = (id: string): BrowserSessionRecord => ({ id, userId: '7', generation: 0, createdAtMs: 0, lastSeenAtMs: 0, passwordAtMs: 0, userAgent: '', address: '127.0.0.1', endedAtMs: null })

  test('the sessions page marks this browser, in the text and in the button label, and no other', () => {
    const page = sessionsPage({ csrfToken: 'c', user, sessions: [session('a'), session('b')], currentId: 'b' })
    assert.equal(titleOf(page), 'Your sessions · Latchkey')
    const rows = [...page.matchAll(/<tr data-session-id="(\w)">([\s\S]*?)<\/tr>/g)].map((m) => [m[1], m[2]!.includes('<strong>(this browser)</strong>'), /aria-label="[^"]*\(this browser\)"/.test(m[2]!)])
    assert.deepEqual(rows, [
      ['a', false, false],
      ['b', true, true],
    ])
    assert.doesNotMatch(page, /role="status"/)
  })

  test('the sessions page offers "Sign out of all other sessions" only when there is another session', () => {
    const offered = (sessions: BrowserSessionRecord[]) => sessionsPage({ csrfToken: 'c', user, sessions, currentId: 'b' }).includes('Sign out of all other sessions')
    assert.equal(offered([session('b')]), false, 'this browser alone')
    assert.equal(offered([session('a'), session('b')]), true)
  })

  test('the password pages are titled for what they do; the confirmation carries the hidden fields it is given', () => {
    assert.equal(titleOf(passwordPage({ csrfToken: 'c', user })), 'Change your password · Latchkey')
    const confirm = confirmPasswordPage({ csrfToken: 'c', user, action: '/console/apps/1/keys', hidden: new Map([['grace', '60']]) })
    assert.equal(titleOf(confirm), 'Confirm your password · Latchkey')
    assert.match(confirm, /<input type="hidden" name="grace" value="60">/)
  })

  test('a browser is named by its browser and system, either alone when only one is known', () => {
    assert.equal(browserName('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'), 'Firefox on Linux')
    assert.equal(browserName('Firefox/128.0'), 'Firefox')
    assert.equal(browserName('(Windows NT 10.0; Win64; x64)'), 'Windows')
    assert.equal(browserName('curl/8.5.0'), undefined)
  })
})

describe('the console frame', () => {
  const signIn = (allowSignup: boolean) => signInPage({ csrfToken: 'c', next: '/console', heading: 'Sign in to the developer console', usernamePrefill: '', allowSignup, signInOptions: PASSWORD_ONLY })

  test('the sign-in and sign-up pages: titled for what they are, no account links before signing in, sign-up offered only when open', () => {
    const open = signIn(true)
    assert.equal(titleOf(open), 'Sign in to the developer console · Latchkey')
    assert.match(open, /<main class="wide">\n<h1>Sign in to the developer console<\/h1>/, 'nothing before the heading')
    assert.match(open, /<p>New here\? <a href="\/console\/signup">Create an account<\/a>\.<\/p>/)
    assert.doesNotMatch(signIn(false), /New here\?|\/console\/signup/)
    const signUp = signUpPage({ csrfToken: 'c', screenName: '', name: '' })
    assert.equal(titleOf(signUp), 'Create an account · Latchkey')
    assert.match(signUp, /<main class="wide">\n<h1>Create an account<\/h1>/)
  })

  test('console pages carry the Copy script; a signed-in page starts with the account links', () => {
    const page = connectedAppsPage({ csrfToken: 'c', user, apps: [] })
    assert.match(page, /<script>[^<]+<\/script>/)
    assert.match(page, /<main class="wide">\n<nav aria-label="Account">/)
  })

  test('a page is titled with its own name, then the brand once: the brand alone when the page is named after it', () => {
    assert.equal(titleOf(layout('Latchkey', html`<h1>Latchkey</h1>`)), 'Latchkey')
    assert.equal(titleOf(layout('Your PIN', html`<h1>PIN</h1>`)), 'Your PIN · Latchkey')
  })

  test('a URL is a link only when it is http or https; anything else, a URL or not, is code', () => {
    assert.equal(urlText('http://a.example/').value, '<a href="http://a.example/" rel="noopener noreferrer nofollow">http://a.example/</a>')
    assert.equal(urlText('https://a.example/').value, '<a href="https://a.example/" rel="noopener noreferrer nofollow">https://a.example/</a>')
    assert.equal(urlText('javascript:alert(1)').value, '<code>javascript:alert(1)</code>')
    assert.equal(urlText('not a url').value, '<code>not a url</code>')
  })
})
