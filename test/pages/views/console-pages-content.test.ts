// The developer console's pages as a developer reads and uses them (src/pages/views/console-apps.ts):
// every form, where it posts and what its button says; the choices each select offers and which is
// chosen; the app's status and details; the list of apps.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { EMPTY_APP_FORM, appListPage, appPage, deleteAppPage, newAppPage, type AppPageView } from '../../../src/pages/views/console-apps.ts'
import { signatureFailuresPage } from '../../../src/pages/views/signature-failures.ts'
import type { AppRecord, OAuth2ClientRecord, SignatureFailure, UserRecord } from '../../../src/storage/records.ts'

const user: UserRecord = { id: '7', screenName: 'ada', name: 'Ada', passwordHash: 'x', createdAtMs: 0 }
const CSRF = 'K'.repeat(32)
const app = (overrides: Partial<AppRecord> = {}): AppRecord =>
  ({
    id: '12',
    name: 'Pocket',
    description: '',
    website: '',
    ownerId: '7',
    consumerKey: 'ck',
    consumerSecret: 'cs',
    callbackUrls: ['https://pocket.example/cb', 'https://pocket.example/cb2'],
    type: 'web',
    accessLevel: 'read-write',
    isSignInEnabled: true,
    isSuspended: false,
    createdAtMs: Date.UTC(2026, 0, 2, 3, 4),
    ...overrides,
  }) as AppRecord
const client = (type: 'confidential' | 'public'): OAuth2ClientRecord => ({ appId: '12', clientId: 'client-id', type, clientSecret: null, createdAtMs: 0 }) as unknown as OAuth2ClientRecord

const page = (overrides: Partial<AppPageView> = {}) => appPage({ csrfToken: CSRF, user, app: app(), usage: [], ...overrides })

/** Each form of the page but the frame's sign-out: where it posts, its buttons [id, class, text], and whether it carries the CSRF value. */
function formsOf(html: string) {
  return [...html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)]
    .filter((m) => m[1] !== '/console/sign-out')
    .map((m) => ({
      action: m[1]!,
      buttons: [...m[2]!.matchAll(/<button type="submit" id="([^"]+)" class="([^"]+)">([^<]*)<\/button>/g)].map((b) => [b[1], b[2], b[3]]),
      csrf: m[2]!.includes(`<input type="hidden" name="csrf_token" value="${CSRF}">`),
    }))
}

/** The options of the select with this id: [value, text, selected]. */
function optionsOf(html: string, id: string) {
  const select = new RegExp(`<select id="${id}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1]
  assert.ok(select !== undefined, `a select #${id}`)
  return [...select.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)].map((o) => [o[1], o[3], o[2] !== undefined])
}

const labelOf = (html: string, id: string) => new RegExp(`<label for="${id}">([^<]*)</label>`).exec(html)?.[1]
const hintOf = (html: string, id: string) => new RegExp(`<p id="${id}_hint" class="muted">([^<]*)</p>`).exec(html)?.[1]
const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1]
const rowOf = (html: string, header: string) => new RegExp(`<th scope="row">${header}</th><td>([\\s\\S]*?)</td></tr>`).exec(html)?.[1]

const TYPES = [
  ['web', 'Web'],
  ['desktop', 'Desktop'],
]
const ACCESS_LEVELS = [
  ['read', 'Read'],
  ['read-write', 'Read and write'],
  ['read-write-directmessages', 'Read, write and direct messages'],
]
/** A select's expected options: each [value, text], the one of `chosen` selected. */
const choicesOf = (options: string[][], chosen: string) => options.map(([value, text]) => [value, text, value === chosen])

const GRACE = [
  ['', 'No grace period: stop it now', true],
  ['3600', '1 hour', false],
  ['86400', '24 hours', false],
  ['604800', '7 days', false],
]

describe("an app's page", () => {
  test('every action is a form that posts to its own address with the CSRF value, its button named for what it does', () => {
    assert.deepEqual(formsOf(page({ oauth2Client: client('confidential') })), [
      { action: '/console/apps/12/keys', buttons: [['regenerate_keys', 'secondary', 'Regenerate consumer key and secret']], csrf: true },
      { action: '/console/apps/12/bearer-token', buttons: [['get_bearer_token', 'secondary', 'Get the bearer token']], csrf: true },
      { action: '/console/apps/12/bearer-token/invalidate', buttons: [['invalidate_bearer_token', 'secondary', 'Invalidate the bearer token']], csrf: true },
      { action: '/console/apps/12/owner-token', buttons: [['generate_access_token', 'secondary', 'Generate your access token']], csrf: true },
      { action: '/console/apps/12/owner-token/invalidate', buttons: [['invalidate_access_token', 'secondary', 'Invalidate your access token']], csrf: true },
      { action: '/console/apps/12', buttons: [['save_app', 'primary', 'Save changes']], csrf: true },
      { action: '/console/apps/12/oauth2', buttons: [['save_oauth2', 'secondary', 'Save user authentication settings']], csrf: true },
      { action: '/console/apps/12/oauth2/secret', buttons: [['regenerate_client_secret', 'secondary', 'Regenerate client secret']], csrf: true },
      { action: '/console/apps/12/suspend', buttons: [['suspend_app', 'danger', 'Suspend app']], csrf: true },
    ])
  })

  test("is grouped as X's developer portal: contents at the top link each part, in order, to its heading", () => {
    const html = page({ oauth2Client: client('confidential') })
    const contents = /<nav aria-label="On this page"><ul>([\s\S]*?)<\/ul><\/nav>/.exec(html)?.[1] ?? ''
    const links = [...contents.matchAll(/<li><a href="#([a-z_]+)">([^<]*)<\/a><\/li>/g)].map((m) => [m[1], m[2]])
    const headings = [...html.matchAll(/<h2 id="([a-z_]+)">([^<]*)<\/h2>/g)].map((m) => [m[1], m[2]])
    const parts = [
      ['keys_and_tokens', 'Keys and tokens'],
      ['settings', 'Settings'],
      ['user_authentication', 'User authentication settings'],
      ['usage', 'Usage'],
      ['failures', 'Signature failures'],
      ['danger', 'Suspend or delete'],
    ]
    assert.deepEqual(links, parts)
    assert.deepEqual(headings, parts)
    assert.ok(html.indexOf('aria-label="On this page"') < html.indexOf('<h2'), 'the contents come before the first part')
  })

  test('each token button sits under the heading of the credential it makes or ends', () => {
    const html = page()
    const keys = html.slice(html.indexOf('<h2 id="keys_and_tokens">'), html.indexOf('<h2 id="settings">'))
    const under = [...keys.matchAll(/<h3>([^<]*)<\/h3>([\s\S]*?)(?=<h3>|$)/g)].map((m) => [m[1], [...m[2]!.matchAll(/<button type="submit" id="([^"]+)"/g)].map((b) => b[1])])
    assert.deepEqual(under, [
      ['Consumer keys', ['regenerate_keys']],
      ['Bearer token', ['get_bearer_token', 'invalidate_bearer_token']],
      ['Access token and secret', ['generate_access_token', 'invalidate_access_token']],
    ])
    assert.match(keys, /<p>Consumer key \(API key\): <code>ck<\/code>\./)
    assert.match(keys, /calls as @ada with this app/)
  })

  test('a grace period is offered for the keys and for the client secret: none (chosen), an hour, a day, a week, each explained', () => {
    const html = page({ oauth2Client: client('confidential') })
    assert.deepEqual(optionsOf(html, 'grace'), GRACE)
    assert.equal(labelOf(html, 'grace'), 'Keep the old key and secret working for')
    assert.equal(hintOf(html, 'grace'), 'Without a grace period every token of the app stops working at once; with one, the old pair and the tokens keep working while your clients move to the new pair.')
    assert.deepEqual(optionsOf(html, 'client_secret_grace'), GRACE)
    assert.equal(labelOf(html, 'client_secret_grace'), 'Keep the old client secret working for')
    assert.equal(hintOf(html, 'client_secret_grace'), 'Without a grace period every grant people gave the app ends at once; with one, the old secret and the grants keep working while your clients move to the new secret.')
  })

  test("OAuth 2.0: the client's type is the one chosen, off when there is none; only a confidential client has a secret to regenerate", () => {
    const choices = (type: string) => [
      ['off', 'Off', type === 'off'],
      ['confidential', 'Confidential client: a web app, automated app or bot (gets a client secret)', type === 'confidential'],
      ['public', 'Public client: a native or single-page app (no secret)', type === 'public'],
    ]
    const off = page()
    assert.deepEqual(optionsOf(off, 'oauth2'), choices('off'))
    assert.match(off, /<p>OAuth 2\.0 is off: only OAuth 1\.0a can act for people\.<\/p>/)
    assert.ok(!formsOf(off).some((form) => form.action.endsWith('/oauth2/secret')))
    const pub = page({ oauth2Client: client('public') })
    assert.deepEqual(optionsOf(pub, 'oauth2'), choices('public'))
    assert.match(pub, /OAuth 2\.0 is on\. Client id: <code id="client_id">client-id<\/code>/)
    assert.ok(!formsOf(pub).some((form) => form.action.endsWith('/oauth2/secret')))
    assert.deepEqual(optionsOf(page({ oauth2Client: client('confidential') }), 'oauth2'), choices('confidential'))
  })

  test('the status says who suspended it; the owner may lift their own suspension, not the operator\'s', () => {
    const active = page()
    assert.equal(rowOf(active, 'Status'), 'Active')
    const own = page({ app: app({ isSuspended: true, suspendedBy: 'owner' }) })
    assert.equal(rowOf(own, 'Status'), 'Suspended: every call with its credentials is refused')
    assert.deepEqual(formsOf(own).find((form) => form.action.endsWith('suspend'))?.buttons, [['unsuspend_app', 'secondary', 'Unsuspend app']])
    const operator = page({ app: app({ isSuspended: true, suspendedBy: 'operator' }) })
    assert.equal(rowOf(operator, 'Status'), 'Suspended by the operator: every call with its credentials is refused. Only the operator can lift it.')
    assert.match(operator, /<p>Suspended by the operator\.<\/p>/)
    assert.ok(!formsOf(operator).some((form) => /suspend$/.test(form.action)))
  })

  test('details: no website is None, no callback is the PIN flow only, each callback on its line; the form holds the settings', () => {
    const bare = page({ app: app({ callbackUrls: [], website: '' }) })
    assert.equal(rowOf(bare, 'Website'), 'None')
    assert.equal(rowOf(bare, 'Callback URLs'), 'None (PIN flow only)')
    assert.equal(rowOf(bare, 'Created'), '2026-01-02 03:04 UTC')
    const full = page()
    assert.equal(rowOf(full, 'Callback URLs'), '<code>https://pocket.example/cb</code><br><code>https://pocket.example/cb2</code><br>')
    assert.match(full, /<textarea id="callbacks" name="callbacks" aria-describedby="callbacks_hint">https:\/\/pocket\.example\/cb\nhttps:\/\/pocket\.example\/cb2<\/textarea>/)
    assert.deepEqual(optionsOf(full, 'type'), choicesOf(TYPES, 'web'))
    assert.deepEqual(optionsOf(full, 'access_level'), choicesOf(ACCESS_LEVELS, 'read-write'))
    assert.match(full, /<input id="sign_in" name="sign_in" type="checkbox" value="on" checked>/)
    assert.match(page({ app: app({ isSignInEnabled: false }) }), /<input id="sign_in" name="sign_in" type="checkbox" value="on">/)
  })

  test("the usage table's window resets at the minute it says, from the reset in seconds", () => {
    const html = page({ usage: [{ resource: '/oauth/request_token', used: 3, limit: 15, remaining: 12, reset: Date.UTC(2026, 4, 6, 7, 8) / 1000 }] })
    assert.match(html, /<tr><td><code class="endpoint"><span class="nowrap">\/oauth<\/span><wbr><span class="nowrap">\/request_token<\/span><\/code><\/td><td>3<\/td><td>15<\/td><td><span class="nowrap">2026-05-06<\/span> 07:08 UTC<\/td><\/tr>/)
  })

  test('is titled after the app and laid out in the widest frame; the delete page is titled for deleting it', () => {
    const html = page()
    assert.equal(titleOf(html), 'Pocket · Latchkey')
    assert.match(html, /<main class="widest">/)
    const remove = deleteAppPage({ csrfToken: CSRF, user, app: app() })
    assert.equal(titleOf(remove), 'Delete Pocket · Latchkey')
    assert.deepEqual(formsOf(remove), [{ action: '/console/apps/12/delete', buttons: [['confirm_delete', 'danger', 'Delete Pocket']], csrf: true }])
  })
})

describe('the list of apps and the new-app form', () => {
  test('lists each app with its type, access and status; says when there are none', () => {
    const list = appListPage({ csrfToken: CSRF, user, apps: [app(), app({ id: '13', name: 'Kept', type: 'desktop', accessLevel: 'read', isSuspended: true })], isFirstPage: true })
    assert.equal(titleOf(list), 'Your apps · Latchkey')
    const rows = [...list.matchAll(/<tr><td><a href="\/console\/apps\/(\d+)">([^<]*)<\/a><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)].map((m) => m.slice(1))
    assert.deepEqual(rows, [
      ['12', 'Pocket', 'web', 'Read and write', 'Active'],
      ['13', 'Kept', 'desktop', 'Read', 'Suspended'],
    ])
    assert.doesNotMatch(list, /You have no apps yet/)
    assert.match(appListPage({ csrfToken: CSRF, user, apps: [], isFirstPage: true }), /<p>You have no apps yet\.<\/p>/)
  })

  test("a new app's form starts from the defaults every door registers with", () => {
    const html = newAppPage({ csrfToken: CSRF, user, values: EMPTY_APP_FORM })
    assert.equal(titleOf(html), 'Create an app · Latchkey')
    assert.deepEqual(optionsOf(html, 'type'), choicesOf(TYPES, 'web'))
    assert.deepEqual(optionsOf(html, 'access_level'), choicesOf(ACCESS_LEVELS, 'read'))
    assert.match(html, /<input id="name" name="name" type="text" value="" maxlength="64" required>/)
    assert.match(html, /<textarea id="callbacks" name="callbacks" aria-describedby="callbacks_hint"><\/textarea>/)
    assert.match(html, /<input id="sign_in" name="sign_in" type="checkbox" value="on">/)
    assert.deepEqual(formsOf(html), [{ action: '/console/apps', buttons: [['create_app', 'primary', 'Create app']], csrf: true }])
  })
})

describe("an app's signature failures page", () => {
  const failure = (reason: SignatureFailure['reason']): SignatureFailure => ({ atMs: Date.UTC(2026, 1, 3, 4, 5), method: 'GET', url: 'https://api.example/x', reason })

  test('names each reason in words beside its code; says when there are none', () => {
    const said: Array<[SignatureFailure['reason'], string]> = [
      ['bad_signature', 'Bad signature: the signature does not match the base string below'],
      ['timestamp_out_of_bounds', 'Timestamp out of bounds: the client&#39;s clock is off'],
      ['nonce_reused', 'Nonce reused: a request with this nonce was already accepted'],
      ['token_invalid', 'Token invalid: unknown, revoked, expired or of another app'],
      ['method_not_allowed', 'Signature method not allowed for this app (or PLAINTEXT without https)'],
      ['body_hash_mismatch', 'oauth_body_hash does not match the body'],
      ['app_suspended', 'The app is suspended'],
    ]
    const html = signatureFailuresPage({ csrfToken: CSRF, user, app: app(), failures: said.map(([reason]) => failure(reason)) })
    const shown = [...html.matchAll(/<p><strong>([^<]*)<\/strong> <span class="muted">\(([a-z_]+)\)<\/span><\/p>/g)].map((m) => [m[2], m[1]])
    assert.deepEqual(shown, said)
    assert.doesNotMatch(html, /No failures in the last 24 hours/)
    assert.equal(titleOf(html), 'Signature failures of Pocket · Latchkey')
    const none = signatureFailuresPage({ csrfToken: CSRF, user, app: app(), failures: [] })
    assert.match(none, /<p>No failures in the last 24 hours\.<\/p>/)
    assert.doesNotMatch(none, /class="failure"/)
  })
})
