// Issue 29 (3): no client input gives a 5xx on either backend, and the text fields of the console
// and the other pages refuse control characters with the usual answer: the form again with its
// message naming the field, or, where the form signs someone in, the ordinary refusal. The fields
// are read from the forms the pages render (every <input>, <textarea>, <select> and named <button>
// of every POST form), so a field added to a page is covered without touching this file. Runs on
// SQLite, and on PostgreSQL + Redis when LATCHKEY_TEST_DATABASE_URL and LATCHKEY_TEST_REDIS_URL are
// set (PostgreSQL refuses U+0000 in text: the case the issue found).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { TEST_DATABASE_URL } from '../../helpers/backends.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { controlCharactersIn, newlyStoredControlCharacters, storedControlCharacters, tableContents } from '../../helpers/stored-rows.ts'
import { injectedTestServer, testClock, type TestServer } from '../../helpers/test-app.ts'
import { Browser, csrfOf } from '../../helpers/browser.ts'
import { makeRequestToken } from '../../helpers/consent-pages.ts'

/** Characters sent in every field: NUL (PostgreSQL's 22021), BEL, ESC, DEL and NEL (C1). */
const CONTROLS = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085'] as const
/** A forged hidden or chosen value is checked for what breaks storage (NUL) and a terminal (ESC): it is never typed. */
const FORGED_CONTROLS = ['\u0000', '\u001b'] as const
const shown = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

// --- the forms as a browser reads them ------------------------------------------------------------

interface FormField {
  name: string
  /** Typed by the person (text, password, url… inputs and textareas), or chosen from what the page gave (hidden, select, checkbox, button). */
  kind: 'typed' | 'chosen'
  /** What the page holds in it ('' for an empty box). */
  value: string
  /** The text of its <label>, lowercase. */
  label: string
}

interface Form {
  action: string
  fields: FormField[]
}

const decode = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&')

function attributes(text: string): Record<string, string> {
  const found: Record<string, string> = {}
  for (const [, name, value] of text.matchAll(/([a-zA-Z_:-]+)(?:="([^"]*)")?/g)) found[name!.toLowerCase()] = decode(value ?? '')
  return found
}

const TYPED_INPUTS = new Set(['text', 'password', 'url', 'email', 'search', 'tel'])

/** Every POST form of the page with its fields (the CSRF value left out: it is the session's, not the person's). */
function formsOf(page: string): Form[] {
  const labels = new Map<string, string>()
  for (const [, attrs, text] of page.matchAll(/<label\b([^>]*)>([\s\S]*?)<\/label>/g)) {
    const target = attributes(attrs!).for
    if (target) labels.set(target, decode(text!.replace(/<[^>]*>/g, '')).trim().toLowerCase())
  }
  const forms: Form[] = []
  for (const [, formAttrs, body] of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const form = attributes(formAttrs!)
    if ((form.method ?? 'get').toLowerCase() !== 'post') continue
    const fields: FormField[] = []
    const add = (attrs: Record<string, string>, kind: FormField['kind'], value: string) => {
      if (!attrs.name || attrs.name === 'csrf_token' || fields.some((f) => f.name === attrs.name)) return
      fields.push({ name: attrs.name, kind, value, label: labels.get(attrs.id ?? '') ?? attrs.name })
    }
    const controls = /<textarea\b([^>]*)>([\s\S]*?)<\/textarea>|<select\b([^>]*)>([\s\S]*?)<\/select>|<(input|button)\b([^>]*)>/g
    for (const [, textarea, text, select, options, tag, tagAttrs] of body!.matchAll(controls)) {
      if (textarea !== undefined) add(attributes(textarea), 'typed', decode(text!))
      else if (select !== undefined) {
        const all = [...options!.matchAll(/<option\b([^>]*)>/g)].map(([, o]) => attributes(o!))
        add(attributes(select), 'chosen', (all.find((o) => 'selected' in o) ?? all[0])?.value ?? '')
      } else {
        const attrs = attributes(tagAttrs!)
        const type = (attrs.type ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase()
        if (tag === 'button' || type === 'submit') add(attrs, 'chosen', attrs.value ?? '')
        else if (type === 'checkbox' || type === 'radio') add(attrs, 'chosen', 'checked' in attrs ? (attrs.value ?? 'on') : '')
        else add(attrs, TYPED_INPUTS.has(type) ? 'typed' : 'chosen', attrs.value ?? '')
      }
    }
    forms.push({ action: decode(form.action ?? ''), fields })
  }
  return forms
}

const alertOf = (page: string) => {
  const match = /<p class="alert" role="alert">([\s\S]*?)<\/p>/.exec(page)
  return match ? decode(match[1]!) : undefined
}

// --- what each form answers ------------------------------------------------------------------------

type Expected = { kind: 'message' } | { kind: 'refusal' } | { kind: 'allowed'; why: string }

/**
 * What a typed field of each form answers when it holds a control character. `message`: the form
 * again (400 or 409) with a message naming the field's label; `refusal`: the ordinary sign-in
 * refusal (401, "The username or password is not right."); `allowed`: taken (never a 5xx), and the
 * character reaches no row. A form with a typed field and no entry here fails the test.
 */
const EXPECTED: Array<{ action: RegExp; form: string; typed: Expected; fields?: Record<string, Expected> }> = [
  { action: /^\/console\/sign-in$/, form: 'console sign-in', typed: { kind: 'refusal' } },
  { action: /^\/oauth\/(authorize|authenticate)$/, form: 'consent sign-in', typed: { kind: 'refusal' } },
  {
    action: /^\/console\/signup$/,
    form: 'sign-up',
    typed: { kind: 'message' },
    // A password is never stored as text (scrypt over its UTF-8 bytes): a NUL can reach no database,
    // and refusing characters would only narrow what a passphrase may hold. The admin API takes the
    // same passwords (test/admin/text-fields.test.ts).
    fields: { password: { kind: 'allowed', why: 'hashed, never stored as text' } },
  },
  { action: /^\/console\/apps$/, form: 'new app', typed: { kind: 'message' } },
  { action: /^\/console\/apps\/\d+$/, form: 'app settings', typed: { kind: 'message' } },
  {
    action: /^\/settings\/password$/,
    form: 'password change',
    typed: { kind: 'message' },
    fields: {
      // The current password is checked as a sign-in is: a wrong one is the ordinary refusal.
      current_password: { kind: 'refusal' },
      new_password: { kind: 'allowed', why: 'hashed, never stored as text' },
    },
  },
  // "Confirm your password" before a sensitive action posts to that action with sudo_password.
  { action: /^\/console\/(sudo|apps\/\d+\/(delete|keys|owner-token|bearer-token))$/, form: 'password confirmation', typed: { kind: 'refusal' } },
]

function expectedFor(form: Form, field: FormField): Expected & { form: string } {
  const entry = EXPECTED.find((e) => e.action.test(form.action))
  assert.ok(entry, `the form posting to ${form.action} has the typed field ${field.name}: say in EXPECTED what it answers`)
  return { ...(entry.fields?.[field.name] ?? entry.typed), form: entry.form }
}

// --- the pages, each opened afresh for every request ----------------------------------------------

let addresses = 0
/** Each browser from its own address, so no page budget, sign-up budget or sign-in throttle is shared. */
const nextAddress = () => `10.29.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`
let names = 0
const freshScreenName = () => `tx${process.pid % 1000}_${++names}`

interface Opened {
  browser: Browser
  page: string
  /** Clean values for the boxes the page leaves empty. */
  fill: Record<string, string>
}

describe(`every text field of the console and the pages refuses control characters (${TEST_DATABASE_URL ? 'PostgreSQL + Redis' : 'SQLite'})`, () => {
  let t: TestServer
  const clock = testClock()
  before(async () => {
    t = await injectedTestServer({ clock, http: { allowSignup: true } })
  })
  after(() => t.close())

  /** A new person and their app; signed in on a new browser unless `signedOut`; the password fresh unless `stale`. */
  async function person(options: { stale?: boolean; signedOut?: boolean } = {}) {
    const { user, password } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner: user, callbackUrls: ['https://client.example/callback'] })
    const browser = new Browser(t.app, nextAddress())
    if (!options.signedOut) {
      const signIn = await browser.get('/console')
      const answer = await browser.post('/console/sign-in', { csrf_token: csrfOf(signIn.body), username: user.screenName, password, next: '/console' })
      assert.equal(answer.statusCode, 302, answer.body)
    }
    // Past the 10 minutes in which a password counts as fresh: sensitive actions ask for it again.
    if (options.stale) clock.advance(11 * 60_000)
    return { user, password, app, browser, fill: fillFor(user.screenName, password) }
  }

  /** Clean values for every box a page leaves empty. */
  const fillFor = (screenName: string, password: string): Record<string, string> => ({
    username: screenName,
    password,
    screen_name: freshScreenName(),
    name: 'Sample name',
    description: 'Sample description',
    website: 'https://ok.example/',
    callbacks: 'https://ok.example/cb',
    current_password: password,
    new_password: 'a brand new password',
    sudo_password: password,
  })

  const get = async (browser: Browser, url: string) => {
    const answer = await browser.get(url)
    assert.equal(answer.statusCode, 200, `${url}: ${answer.body.slice(0, 500)}`)
    return answer.body
  }

  /** The consent page of a new request token, signed out. */
  async function consent(path: string): Promise<Opened> {
    const p = await person({ signedOut: true })
    const token = await makeRequestToken(t.domain, p.app)
    return { browser: p.browser, page: await get(p.browser, `${path}?oauth_token=${encodeURIComponent(token.token)}`), fill: p.fill }
  }

  /** Every page with a form, by name: how to reach it with a fresh browser (and person). */
  const PAGES: Record<string, () => Promise<Opened>> = {
    'sign-in': async () => {
      const p = await person({ signedOut: true })
      return { browser: p.browser, page: await get(p.browser, '/console'), fill: p.fill }
    },
    'sign-up': async () => {
      const browser = new Browser(t.app, nextAddress())
      return { browser, page: await get(browser, '/console/signup'), fill: fillFor('', 'a good password') }
    },
    'new app': async () => {
      const p = await person()
      return { browser: p.browser, page: await get(p.browser, '/console/apps/new'), fill: p.fill }
    },
    'app page': async () => {
      const p = await person()
      return { browser: p.browser, page: await get(p.browser, `/console/apps/${p.app.id}`), fill: p.fill }
    },
    'delete app': async () => {
      const p = await person()
      return { browser: p.browser, page: await get(p.browser, `/console/apps/${p.app.id}/delete`), fill: p.fill }
    },
    'confirm your password': async () => {
      const p = await person({ stale: true })
      const page = await get(p.browser, `/console/apps/${p.app.id}`)
      const asked = await p.browser.post(`/console/apps/${p.app.id}/owner-token`, { csrf_token: csrfOf(page) })
      assert.equal(asked.statusCode, 200)
      assert.match(asked.body, /Confirm your password/)
      return { browser: p.browser, page: asked.body, fill: p.fill }
    },
    'password': async () => {
      const p = await person()
      return { browser: p.browser, page: await get(p.browser, '/settings/password'), fill: p.fill }
    },
    'sessions': async () => {
      const p = await person()
      return { browser: p.browser, page: await get(p.browser, '/settings/sessions'), fill: p.fill }
    },
    'connected apps': async () => {
      const p = await person()
      await issueOrReuseAccessToken(t.domain, { appId: p.app.id, userId: p.user.id, accessLevel: 'read' }, { via: 'exchange' })
      return { browser: p.browser, page: await get(p.browser, '/settings/connected_apps'), fill: p.fill }
    },
    'consent (authorize)': () => consent('/oauth/authorize'),
    'consent (authenticate)': () => consent('/oauth/authenticate'),
  }

  /** A form's shape: where it posts (ids as #) and its fields' names; the same between openings of a page. */
  const shapeOf = (form: Form) => `${form.action.replace(/\d+/g, '#')} ${form.fields.map((f) => f.name).join(',')}`

  /** The form of `page` of the same shape as `like` (ids differ between openings). */
  function sameForm(page: string, like: Form): Form {
    const form = formsOf(page).find((f) => shapeOf(f) === shapeOf(like))
    assert.ok(form, `the page has the form ${shapeOf(like)}`)
    return form
  }

  /** The form's fields as a browser would post them, the empty boxes filled in, `changed` put in. */
  function posted(form: Form, fill: Record<string, string>, changed: Record<string, string> = {}): Record<string, string> {
    const fields: Record<string, string> = {}
    for (const field of form.fields) {
      const value = field.kind === 'typed' && field.value === '' ? fill[field.name] : field.value
      assert.ok(value !== undefined, `${form.action}: no value for the empty box ${field.name}; add one to fill`)
      if (value !== '' || field.kind === 'typed') fields[field.name] = value
    }
    return { ...fields, ...changed }
  }

  /** Every table's rows, but only how many sessions there are (a use notes when each was last seen). */
  /** The database now: every row for the search, and for the comparison every row but the sessions' (a view moves last_seen), counted. */
  async function snapshot(): Promise<{ stored: string[]; tables: Record<string, string[]>; sessions: number }> {
    const { browser_sessions: sessions = [], ...tables } = await tableContents(t.dbPath)
    return { stored: controlCharactersIn({ ...tables, browser_sessions: sessions }), tables, sessions: sessions.length }
  }

  const withControl = (value: string, control: string) => `${value.slice(0, Math.ceil(value.length / 2))}${control}${value.slice(Math.ceil(value.length / 2))}`

  /** Every page's forms and their fields, from one opening of each. */
  async function survey() {
    const found: Array<{ pageName: string; form: Form; field: FormField }> = []
    const forms: Array<{ pageName: string; form: Form }> = []
    for (const [pageName, open] of Object.entries(PAGES)) {
      for (const form of formsOf((await open()).page)) {
        // The same form on many pages (sign out) is surveyed once.
        if (forms.some((f) => shapeOf(f.form) === shapeOf(form))) continue
        forms.push({ pageName, form })
        for (const field of form.fields) found.push({ pageName, form, field })
      }
    }
    return { forms, fields: found }
  }

  let surveyed: Awaited<ReturnType<typeof survey>>
  before(async () => {
    surveyed = await survey()
  })

  test('the pages yield their forms and fields, the known ones among them', (c) => {
    const keys = new Set(surveyed.fields.map((f) => `${f.form.action.replace(/\d+/g, '#')} ${f.field.name}`))
    for (const known of [
      '/console/sign-in username',
      '/console/sign-in password',
      '/console/signup screen_name',
      '/console/signup name',
      '/console/apps name',
      '/console/apps description',
      '/console/apps website',
      '/console/apps callbacks',
      '/console/apps/# name',
      '/console/apps/# callbacks',
      '/settings/password new_password',
      '/console/apps/#/owner-token sudo_password',
      '/oauth/authorize username',
      '/oauth/authenticate password',
    ]) {
      assert.ok(keys.has(known), `${known} is among ${[...keys].join(', ')}`)
    }
    const typed = surveyed.fields.filter((f) => f.field.kind === 'typed').length
    c.diagnostic(`${surveyed.forms.length} forms, ${surveyed.fields.length} fields: ${typed} typed, ${surveyed.fields.length - typed} chosen`)
  })

  test('each form, filled in cleanly, goes through (so a refusal below is the character\'s doing)', async (c) => {
    for (const { pageName, form } of surveyed.forms) {
      if (form.fields.length === 0) continue
      await c.test(`${form.action.replace(/\d+/g, '#')} (${pageName})`, async () => {
        const opened = await PAGES[pageName]!()
        const current = sameForm(opened.page, form)
        const answer = await opened.browser.post(current.action, { csrf_token: csrfOf(opened.page), ...posted(current, opened.fill) })
        assert.ok(answer.statusCode < 400, `${current.action}: ${answer.statusCode} ${alertOf(answer.body) ?? answer.body.slice(0, 500)}`)
      })
    }
  })

  test('each typed field: a control character gets the form\'s message or the ordinary refusal, and writes nothing', async (c) => {
    for (const { pageName, form, field } of surveyed.fields.filter((f) => f.field.kind === 'typed')) {
      const expected = expectedFor(form, field)
      await c.test(`${expected.form}: ${field.name} (${expected.kind === 'allowed' ? `allowed: ${expected.why}` : expected.kind})`, async () => {
        for (const control of CONTROLS) {
          const opened = await PAGES[pageName]!()
          const current = sameForm(opened.page, form)
          const clean = posted(current, opened.fill)[field.name]!
          const { stored, ...before } = await snapshot()
          const answer = await opened.browser.post(current.action, {
            csrf_token: csrfOf(opened.page),
            ...posted(current, opened.fill, { [field.name]: withControl(clean, control) }),
          })
          const what = `${current.action} ${field.name} with ${shown(control)}: ${answer.statusCode} ${alertOf(answer.body) ?? answer.body.slice(0, 300)}`
          assert.ok(answer.statusCode < 500, what)
          const { stored: storedAfter, ...after } = await snapshot()
          assert.deepEqual(storedAfter.filter((row) => !stored.includes(row)), [], `${what}: the character reached a row`)
          if (expected.kind === 'allowed') {
            assert.ok(answer.statusCode < 400, what)
            continue
          }
          assert.match(String(answer.headers['content-type']), /^text\/html/, what)
          assert.ok(formsOf(answer.body).some((f) => f.action === current.action), `${what}: the form is shown again`)
          if (expected.kind === 'refusal') {
            assert.equal(answer.statusCode, E.signInFailed.status, what)
            assert.equal(alertOf(answer.body), E.signInFailed.message, what)
            // A refused sign-in is audited (without what was typed); nothing else is written.
            const added = (after.tables.audit_events ?? []).filter((row) => !(before.tables.audit_events ?? []).includes(row))
            assert.ok(added.length <= 1 && added.every((row) => row.includes('sign_in.failed')), `${what}: ${added.join('\n')}`)
            after.tables.audit_events = before.tables.audit_events ?? []
          } else {
            assert.ok(answer.statusCode === 400 || answer.statusCode === 409, what)
            const label = field.label.replace(/s$/, '')
            assert.ok(alertOf(answer.body)?.toLowerCase().includes(label), `${what}: the message names the ${label}`)
          }
          assert.deepEqual(after, before, `${what}: nothing is written`)
        }
      })
    }
  })

  test('each chosen field (hidden, select, checkbox, button), forged with a control character: never a 5xx, never stored', async (c) => {
    for (const { pageName, form, field } of surveyed.fields.filter((f) => f.field.kind === 'chosen')) {
      await c.test(`${form.action.replace(/\d+/g, '#')}: ${field.name}`, async () => {
        for (const control of FORGED_CONTROLS) {
          const opened = await PAGES[pageName]!()
          const current = sameForm(opened.page, form)
          const clean = posted(current, opened.fill)[field.name] ?? field.value
          const stored = await storedControlCharacters(t.dbPath)
          const answer = await opened.browser.post(current.action, {
            csrf_token: csrfOf(opened.page),
            ...posted(current, opened.fill, { [field.name]: withControl(clean || 'x', control) }),
          })
          const what = `${current.action} ${field.name} with ${shown(control)}: ${answer.statusCode} ${alertOf(answer.body) ?? answer.body.slice(0, 300)}`
          assert.ok(answer.statusCode < 500, what)
          assert.deepEqual(await newlyStoredControlCharacters(t.dbPath, stored), [], `${what}: the character reached a row`)
        }
      })
    }
  })

  test('after all of it, no row anywhere holds a control character', async () => {
    assert.deepEqual(await storedControlCharacters(t.dbPath), [])
  })
})
