import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { SCRIPT } from '../../../src/pages/views/layout.ts'
import { ADDRESSES, httpsHeaders, nonexistentId, ODD_FORWARDED_FOR, pageGet, fixtureOfSuite, type Fixture } from '../../helpers/fuzz/fixture.ts'
import { anyText, badEscape, encodeLoose, formEncodeLoose, hugeString, invalidUtf8, oddId, percentOf, rawBytes, withControl } from '../../helpers/fuzz/hostile-input.ts'
import { header, jsonErrorMistakes, STACK_TRACE, type Answer, type Attempt } from '../../helpers/fuzz/raw-exchange.ts'
import { failedSignIns, PAGE_RUNS, runHostile } from '../../helpers/fuzz/run.ts'

/**
 * Issue 29: generated hostile requests against the browser pages (console, settings, consent), over
 * real sockets to a running production-mode server, on whichever backend this run has (SQLite, or
 * PostgreSQL + Redis). Its twin for the admin API is test/admin/hostile-requests.test.ts; the
 * fixture, the raw HTTP and the building blocks of hostile input are theirs together, in
 * test/helpers/fuzz/.
 *
 * Most requests carry a signed-in session cookie and its CSRF value, so their input reaches the
 * validators; the rest carry none, a visitor's, a forged one or a wrong CSRF value. Every form is
 * refused by construction (a wrong password, a field out of bounds, a control character, an app
 * that is no one's...), and on top of that comes the transport's mischief: invalid UTF-8 as raw bytes
 * and as percent-escapes, bad escapes, huge bodies, JSON and multipart instead of a form, repeated
 * form fields, odd paths, cookies and forwarded headers, raw bytes that are not HTTP.
 *
 * Asserted: never a 5xx; every error an HTML page (anything refused before routing: the JSON error
 * body); no stack trace and no script but the pages' own in any body; and, around each batch of
 * requests, no row written but the audit trail's failed sign-ins (test/helpers/fuzz/run.ts).
 */

function htmlPageMistakes(answer: Answer): string[] {
  const mistakes: string[] = []
  if (header(answer, 'content-type') !== 'text/html; charset=utf-8') mistakes.push(`content-type ${header(answer, 'content-type')}`)
  if (!answer.body.startsWith('<!doctype html>') || !answer.body.trimEnd().endsWith('</html>') || !/<title>[^<]+<\/title>/.test(answer.body)) mistakes.push('not a whole HTML page')
  if (!/<h1>[^<]+<\/h1>/.test(answer.body)) mistakes.push('no heading')
  return mistakes
}

/** A header value Node's parser refuses (a control character): answered before routing, with the JSON error. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const refusedByParser = (attempt: Attempt) => attempt.headers.some(([, value]) => /[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))

function checkPage(attempt: Attempt, answer: Answer): string[] {
  const mistakes: string[] = []
  if (answer.status >= 500) mistakes.push(`${answer.status}`)
  if (attempt.mustRefuse && answer.status < 300) mistakes.push(`a broken write was accepted (${answer.status})`)
  if (STACK_TRACE.test(answer.body)) mistakes.push('stack trace in the body')
  // Pages have no script but the one Copy script (CSP: by its hash): any other <script tag would be input reflected unescaped.
  if (/<script/i.test(answer.body.replace(`<script>${SCRIPT}</script>`, ''))) mistakes.push('<script in the body')
  if (answer.status >= 400 && attempt.method !== 'HEAD') {
    const isHtml = header(answer, 'content-type').startsWith('text/html')
    if ((attempt.routedPage && !refusedByParser(attempt)) || isHtml) mistakes.push(...htmlPageMistakes(answer))
    else mistakes.push(...jsonErrorMistakes(answer))
  }
  return mistakes
}

type Auth = 'person' | 'visitor' | 'none' | 'forged' | 'wrong-csrf' | 'http-cookie'

interface PageRoute {
  method: 'GET' | 'POST'
  /** `:app` stands for an app id. */
  path: string
  /** Fields of the form this route takes: wrong passwords, refused values (the first of a repeated field is the one read). */
  fields?: (f: Fixture, person: Fixture['people'][number]) => fc.Arbitrary<{ how: string; pairs: Array<[string, string]> }>
  /**
   * With a live session and the right CSRF value, the route would change something even with
   * these fields: it is then sent only without them (no session, forged, wrong CSRF) or to an id
   * that is no app of the person's.
   */
  destructive?: boolean
}

const pairs = (...entries: Array<[string, string] | undefined>) => entries.filter((e): e is [string, string] => e !== undefined)
/** A form value of any kind: text, controls, huge, markup. */
const formValue = fc.oneof(anyText, withControl, hugeString.map((s) => s.slice(0, 3000)))

/** Fields of the app form with one that is refused by construction. */
function appForm(): fc.Arbitrary<{ how: string; pairs: Array<[string, string]> }> {
  const valid: Record<string, string> = { name: 'Fuzz made', description: '', website: '', callbacks: 'https://client.example/callback', type: 'web', access_level: 'read-write' }
  const breaks = fc.oneof(
    fc.oneof(withControl, fc.constantFrom('', '   ', 'n'.repeat(65))).map((v) => ['name', v] as [string, string]),
    fc.constantFrom('javascript:alert(1)', 'ftp://x', 'https://a b', 'x'.repeat(2000)).map((v) => ['website', v] as [string, string]),
    withControl.map((v) => ['website', `https://ok.example/${v}`] as [string, string]),
    fc.constantFrom('x\u0000', 'd'.repeat(501), 'a\u001bb').map((v) => ['description', v] as [string, string]),
    fc.constantFrom('/relative', 'https://ok.example/#x', 'javascript:alert(1)', Array.from({ length: 11 }, (_, i) => `https://ok.example/${i}`).join('\n'), 'https://ok.example/\u0000').map((v) => ['callbacks', v] as [string, string]),
    fc.constantFrom('mobile', '', 'WEB ').map((v) => ['type', v] as [string, string]),
    fc.constantFrom('admin', '', 'READ').map((v) => ['access_level', v] as [string, string]),
  )
  return fc.tuple(breaks, fc.array(fc.tuple(fc.constantFrom('name', 'description', 'website', 'callbacks', 'sign_in', 'unknown', 'csrf_token'), formValue), { maxLength: 3 })).map(([broken, noise]) => {
    // The broken field first: the first value of a repeated field is the one used (src/pages/form-fields.ts).
    const fields = Object.entries(valid).filter(([k]) => k !== broken[0])
    return { how: `app form: ${broken[0]} ${JSON.stringify(broken[1].slice(0, 30))}`, pairs: [broken, ...fields, ...noise] }
  })
}

function pageRoutes(): PageRoute[] {
  const wrongPassword = fc.oneof(fc.constant(''), formValue, fc.constantFrom('wrong password', 'fuzz password 0')).map((v) => ['sudo_password', v] as [string, string])
  const sudo = () => fc.option(wrongPassword, { nil: undefined }).map((p) => ({ how: p ? 'wrong sudo password' : 'no sudo password', pairs: pairs(p) }))
  return [
    { method: 'GET', path: '/console' },
    { method: 'GET', path: '/console/signup' },
    { method: 'GET', path: '/console/apps/new' },
    { method: 'GET', path: '/console/apps/:app' },
    { method: 'GET', path: '/console/apps/:app/delete' },
    { method: 'GET', path: '/console/apps/:app/failures' },
    { method: 'GET', path: '/console/apps/:app/webhooks' },
    { method: 'GET', path: '/settings/connected_apps' },
    { method: 'GET', path: '/settings/sessions' },
    { method: 'GET', path: '/settings/password' },
    {
      method: 'POST',
      path: '/console/sign-in',
      // Never a right password: a sign-in that works would start a session (a row).
      fields: (f) =>
        fc.tuple(fc.oneof(fc.constantFrom(...f.screenNames), formValue), fc.oneof(formValue, fc.constant('fuzz password 0')), fc.option(fc.oneof(fc.constantFrom('/console', '/settings/password', '//evil.example', 'https://evil.example', '/console/apps/1'), formValue), { nil: undefined })).map(([username, password, next]) => ({
          how: 'sign-in with a wrong password',
          pairs: pairs(['username', username], ['password', password], next === undefined ? undefined : ['next', next]),
        })),
    },
    { method: 'POST', path: '/console/sign-out', destructive: true },
    {
      method: 'POST',
      path: '/console/signup',
      fields: (f) =>
        fc
          .oneof(
            fc.tuple(fc.oneof(withControl, fc.constantFrom('', 'two words', 'a'.repeat(16), 'ümlaut', f.screenNames[0]!, f.screenNames[1]!.toUpperCase())), fc.constant('a good password')).map(([s, p]) => ({ how: `sign-up: screen name ${JSON.stringify(s.slice(0, 20))}`, s, p, n: 'Name' })),
            fc.tuple(fc.constantFrom('short', '', '1234567', 'x'.repeat(1025)), fc.constant('fuzz_signup')).map(([p, s]) => ({ how: 'sign-up: password refused', s, p, n: 'Name' })),
            fc.tuple(fc.oneof(withControl, fc.constant('x'.repeat(51))), fc.constant('fuzz_signup')).map(([n, s]) => ({ how: 'sign-up: name refused', s, p: 'a good password', n })),
          )
          .chain((c) =>
            fc.array(fc.tuple(fc.constantFrom('screen_name', 'password', 'name', 'x'), formValue), { maxLength: 2 }).map((noise) => ({
              how: c.how,
              pairs: [['screen_name', c.s], ['name', c.n], ['password', c.p], ...noise] as Array<[string, string]>,
            })),
          ),
    },
    { method: 'POST', path: '/console/apps', fields: () => appForm() },
    { method: 'POST', path: '/console/apps/:app', fields: () => appForm() },
    { method: 'POST', path: '/console/apps/:app/suspend', destructive: true },
    { method: 'POST', path: '/console/apps/:app/unsuspend', destructive: true },
    { method: 'POST', path: '/console/apps/:app/delete', fields: sudo },
    {
      method: 'POST',
      path: '/console/apps/:app/keys',
      fields: () =>
        fc.tuple(fc.constantFrom('0', '-1', 'abc', '604801', '99999999', '1.5', ' 60', '60\u0000', ''), wrongPassword).map(([grace, p]) => ({ how: `keys with grace ${JSON.stringify(grace)}`, pairs: pairs(['grace', grace], p) })),
      // With an empty grace a right password would rotate; the password is never right.
    },
    { method: 'POST', path: '/console/apps/:app/owner-token', fields: sudo },
    { method: 'POST', path: '/console/apps/:app/bearer-token', fields: sudo },
    // The people hold no access tokens and no app a bearer token: invalidating finds nothing (404).
    { method: 'POST', path: '/console/apps/:app/owner-token/invalidate' },
    {
      method: 'POST',
      path: '/console/apps/:app/webhooks',
      // Never a URL that is taken: each is refused by construction (a webhook would be a row).
      fields: () =>
        fc
          .oneof(withControl.map((v) => `https://rs.example/${v}`), fc.constantFrom('', 'ftp://rs.example/hook', 'javascript:alert(1)', 'https://u:p@rs.example/', `https://rs.example/${'x'.repeat(2049)}`))
          .map((url) => ({ how: `webhook url ${JSON.stringify(url.slice(0, 30))}`, pairs: pairs(['url', url]) })),
    },
    // No webhook of this id exists: 404.
    { method: 'POST', path: '/console/apps/:app/webhooks/1/verify' },
    { method: 'POST', path: '/console/apps/:app/webhooks/1/remove' },
    { method: 'POST', path: '/console/apps/:app/bearer-token/invalidate' },
    { method: 'POST', path: '/console/sudo', fields: () => fc.tuple(wrongPassword, fc.option(fc.oneof(fc.constant('/console'), formValue), { nil: undefined })).map(([p, next]) => ({ how: 'sudo with a wrong password', pairs: pairs(p, next === undefined ? undefined : ['next', next]) })) },
    {
      method: 'POST',
      path: '/settings/sessions/end',
      fields: () => fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{32}$/), formValue).map((id) => ({ how: 'end a session that is none of theirs', pairs: [['session', id]] as Array<[string, string]> })),
    },
    // Ending the other sessions is audited even when there are none: only ever sent without a session.
    { method: 'POST', path: '/settings/sessions/end-others', destructive: true },
    {
      method: 'POST',
      path: '/settings/password',
      fields: () =>
        fc.tuple(fc.oneof(formValue, fc.constant('fuzz password 0')), fc.oneof(formValue, fc.constant('a new good password'))).map(([current, next]) => ({ how: 'password change with a wrong current password', pairs: [['current_password', current], ['new_password', next]] as Array<[string, string]> })),
    },
    {
      method: 'POST',
      path: '/settings/connected_apps/revoke',
      fields: (f) => fc.oneof(fc.constantFrom(...f.appIds), oddId, nonexistentId(f)).map((id) => ({ how: 'revoke an app never authorized', pairs: [['revoke', id]] as Array<[string, string]> })),
    },
  ]
}

function consentAttempts(f: Fixture, address: fc.Arbitrary<string>): fc.Arbitrary<Attempt> {
  const token = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...f.requestTokens) },
    { weight: 2, arbitrary: fc.oneof(fc.constantFrom('', 'unknown', 'x'.repeat(3000)), badEscape, fc.string({ maxLength: 30 }).map(encodeURIComponent)) },
  )
  const query = fc
    .tuple(token, fc.option(fc.oneof(fc.constantFrom('true', '1', 'TRUE', 'no', ''), badEscape), { nil: undefined }), fc.option(fc.oneof(formValue.map(encodeLoose), badEscape), { nil: undefined }), fc.boolean())
    .map(([t, force, name, repeat]) =>
      [`oauth_token=${t}`, force === undefined ? '' : `force_login=${force}`, name === undefined ? '' : `screen_name=${name}`, repeat ? `oauth_token=${f.requestTokens[0]}` : ''].filter(Boolean).join('&'),
    )
  const flow = fc.constantFrom('/oauth/authorize', '/oauth/authenticate')
  const get = fc.tuple(flow, query, address, fc.constantFrom<'visitor' | 'person' | 'none'>('visitor', 'person', 'none')).map(([path, q, from, who]): Attempt => {
    const cookie = who === 'visitor' ? f.visitor.cookie : who === 'person' ? f.people[0]!.cookie : undefined
    return { aim: `GET ${path}`, how: `${who}: ?${q.slice(0, 60)}`, method: 'GET', target: `${path}?${q}`, headers: [...httpsHeaders(from), ...(cookie ? [['Cookie', cookie] as [string, string]] : [])], authenticated: who !== 'none', mustRefuse: false, routedPage: true }
  })
  // Posted as a visitor who has not signed in: `allow` without credentials is asked to sign in, with
  // wrong ones refused; `cancel` only for tokens that are no request's (it would deny one); `switch` signs out no one.
  const post = fc
    .tuple(
      flow,
      address,
      fc.constantFrom('allow', 'cancel', 'switch', '', 'ALLOW', 'delete', 'allow\u0000'),
      token,
      fc.option(fc.tuple(fc.oneof(fc.constantFrom(...f.screenNames), formValue), formValue), { nil: undefined }),
      fc.constantFrom('right', 'wrong', 'missing', 'repeated-wrong-first'),
      fc.boolean(),
    )
    .map(([path, from, action, t, credentials, csrf, force]): Attempt => {
      const isRealToken = f.requestTokens.includes(t)
      const safeAction = action === 'cancel' && isRealToken ? 'switch' : action
      const csrfPairs: Array<[string, string]> = csrf === 'right' ? [['csrf_token', f.visitor.csrf]] : csrf === 'wrong' ? [['csrf_token', 'x'.repeat(32)]] : csrf === 'repeated-wrong-first' ? [['csrf_token', 'y'.repeat(32)], ['csrf_token', f.visitor.csrf]] : []
      const fields: Array<[string, string]> = [...csrfPairs, ['oauth_token', t], ['action', safeAction], ...(credentials ? ([['username', credentials[0]], ['password', credentials[1]]] as Array<[string, string]>) : []), ...(force ? ([['force_login', 'true']] as Array<[string, string]>) : [])]
      return {
        aim: `POST ${path}`,
        how: `visitor, csrf ${csrf}, action ${JSON.stringify(safeAction)}${credentials ? ', wrong credentials' : ''}`,
        method: 'POST',
        target: path,
        headers: [...httpsHeaders(from), ['Cookie', f.visitor.cookie], ['Content-Type', 'application/x-www-form-urlencoded']],
        body: Buffer.from(formEncodeLoose(fields)),
        authenticated: csrf === 'right',
        mustRefuse: false,
        routedPage: true,
      }
    })
  return fc.oneof(get, post)
}

function pageAttempts(f: Fixture): fc.Arbitrary<Attempt> {
  const routes = pageRoutes()
  const address = fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...ADDRESSES) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_FORWARDED_FOR) })
  const auth = fc.oneof(
    { weight: 10, arbitrary: fc.constant<Auth>('person') },
    { weight: 2, arbitrary: fc.constantFrom<Auth>('visitor', 'none', 'forged', 'wrong-csrf', 'http-cookie') },
  )
  const bodyMischief = fc.oneof(
    { weight: 8, arbitrary: fc.constant('none') },
    { weight: 1, arbitrary: fc.constantFrom('invalid-utf8-raw', 'invalid-utf8-escaped', 'bad-escape', 'huge', 'json', 'nul-separators', 'content-type') },
  )
  const routed = fc
    .record({ route: fc.constantFrom(...routes), auth, personIndex: fc.nat({ max: 2 }), from: address, idPick: fc.nat({ max: 99 }), mischief: bodyMischief, queryJunk: fc.option(fc.oneof(badEscape.map((e) => `x=${e}`), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constant('csrf_token=x')), { freq: 8, nil: undefined }) })
    .chain(({ route, auth: drawn, personIndex, from, idPick, mischief, queryJunk }) => {
      const person = f.people[personIndex]!
      // Signing out, or ending the other sessions, with the right CSRF value would work: those get a wrong one.
      const auth: Auth = route.destructive && drawn === 'person' && !route.path.includes(':app') ? 'wrong-csrf' : drawn
      const isLive = auth === 'person' || auth === 'wrong-csrf'
      const mayTouchOwn = !(route.destructive && auth === 'person')
      const id: fc.Arbitrary<{ value: string; own: boolean }> =
        idPick < 50 && mayTouchOwn
          ? fc.constantFrom(...person.ownAppIds).map((value) => ({ value, own: true }))
          : idPick < 65
            ? fc.constant({ value: person.otherAppId, own: false })
            : fc.oneof(nonexistentId(f), oddId).map((value) => ({ value, own: false }))
      const fields = route.fields ? route.fields(f, person) : fc.constant({ how: 'no fields', pairs: [] as Array<[string, string]> })
      return fc.tuple(id, fields, invalidUtf8, badEscape).map(([appId, form, bytes, escape]): Attempt => {
        const path = route.path.replace(':app', appId.value)
        // The path still names the route (an id of plain characters, within the router's 100 for a
        // parameter): a refusal is the pages' HTML. Others are refused by the router, before any page.
        const routedPage = !route.path.includes(':app') || /^[A-Za-z0-9._~-]{1,100}$/.test(appId.value)
        const target = `${path}${queryJunk === undefined ? '' : `?${queryJunk}`}`
        const cookie =
          auth === 'person' || auth === 'wrong-csrf'
            ? person.cookie
            : auth === 'visitor'
              ? f.visitor.cookie
              : auth === 'forged'
                ? `${person.cookie.slice(0, -6)}${person.cookie.at(-6) === 'A' ? 'B' : 'A'}${person.cookie.slice(-5)}`
                : auth === 'http-cookie'
                  ? person.cookie.replace('__Host-', '')
                  : undefined
        const headers: Array<[string, string]> = [...httpsHeaders(from), ...(cookie ? [['Cookie', cookie] as [string, string]] : [])]
        const how = [`${auth}${isLive ? ` @${person.screenName}` : ''}`, form.how, appId.own ? 'own app' : route.path.includes(':app') ? `app ${appId.value.slice(0, 30)}` : '', mischief === 'none' ? '' : mischief, queryJunk ? `query ${queryJunk.slice(0, 30)}` : ''].filter(Boolean).join('; ')
        if (route.method === 'GET') {
          return { aim: `GET ${route.path}`, how, method: 'GET', target, headers, authenticated: isLive, mustRefuse: false, routedPage }
        }
        const csrf: Array<[string, string]> = auth === 'wrong-csrf' ? [['csrf_token', 'z'.repeat(32)], ['csrf_token', person.csrf]] : auth === 'person' ? [['csrf_token', person.csrf]] : auth === 'visitor' ? [['csrf_token', f.visitor.csrf]] : [['csrf_token', person.csrf]]
        let body = Buffer.from(formEncodeLoose([...csrf, ...form.pairs]))
        let contentType = 'application/x-www-form-urlencoded'
        if (mischief === 'invalid-utf8-raw') body = Buffer.concat([body, Buffer.from('&name='), bytes, Buffer.from('&description='), bytes])
        if (mischief === 'invalid-utf8-escaped') body = Buffer.concat([body, Buffer.from(`&name=${percentOf(bytes)}`)])
        if (mischief === 'bad-escape') body = Buffer.concat([body, Buffer.from(`&name=${escape}`)])
        if (mischief === 'huge') body = Buffer.concat([body, Buffer.from(`&description=${'d'.repeat(70_000)}`)])
        if (mischief === 'json') {
          body = Buffer.from(JSON.stringify(Object.fromEntries([...csrf, ...form.pairs])))
          contentType = 'application/json'
        }
        if (mischief === 'nul-separators') body = Buffer.from(body.toString('latin1').replaceAll('&', '\u0000'), 'latin1')
        if (mischief === 'content-type') contentType = 'multipart/form-data; boundary=----x'
        return {
          aim: `POST ${route.path}`,
          how,
          method: 'POST',
          target,
          headers: [...headers, ['Content-Type', contentType]],
          body,
          authenticated: isLive,
          // A write as someone signed in, with a form refused by construction: any 2xx would be a change.
          mustRefuse: false,
          routedPage,
        }
      })
    })

  const odd: fc.Arbitrary<Attempt> = fc.oneof(
    fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), fc.constantFrom('/console/', '/CONSOLE', '/console//apps', '/console/apps', '/console/apps/1/x', '/console/sign-in', '/console/sign-out', '/settings', '/settings/password/', '/settings/sessions/end', '/oauth/authorize', '/console/apps/new/x', '/console/%2e%2e/admin', '/console/..%2F..%2Fetc'), address).map(([method, target, from]): Attempt => ({
      aim: 'odd path',
      how: `${method} ${target}`,
      method,
      target,
      headers: [...httpsHeaders(from), ['Cookie', f.people[0]!.cookie]],
      // A wrong CSRF value: with the right one, POST /console/sign-out would sign the person out.
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.from(`csrf_token=${'z'.repeat(32)}`) }),
      authenticated: true,
      mustRefuse: false,
    })),
    fc.tuple(invalidUtf8, fc.constantFrom('/console/apps/', '/oauth/authorize?oauth_token=', '/console?x=', '/settings/'), address).map(([bytes, prefix, from]): Attempt => ({
      aim: 'raw',
      how: 'invalid UTF-8 bytes in the path',
      method: 'GET',
      target: `${prefix}${bytes.toString('latin1')}`,
      headers: [...httpsHeaders(from), ['Cookie', f.people[0]!.cookie]],
      authenticated: true,
      mustRefuse: false,
    })),
    // Plain http in production, a cookie with control characters, a huge cookie, many cookies.
    fc.tuple(fc.constantFrom('/console', '/settings/password', '/oauth/authorize?oauth_token=x'), fc.constantFrom<Array<[string, string]>>(
      [['X-Forwarded-Proto', 'http']],
      [['X-Forwarded-Proto', 'https'], ['Cookie', `__Host-latchkey_session=${'a'.repeat(10_000)}`]],
      [['X-Forwarded-Proto', 'https'], ['Cookie', '__Host-latchkey_session=\u0001\u00ff']],
      [['X-Forwarded-Proto', 'https'], ['Cookie', `${f.people[0]!.cookie}; ${f.people[1]!.cookie}`]],
      [['X-Forwarded-Proto', 'https'], ['Cookie', f.people[0]!.cookie], ['Cookie', f.people[1]!.cookie]],
      [['X-Forwarded-Proto', 'https'], ['Cookie', '=; ;;; a=b=c; __Host-latchkey_session']],
      [['X-Forwarded-Proto', 'https, http']],
      [['X-Forwarded-Proto', 'https'], ['X-Forwarded-Host', 'evil.example\u0000']],
    )).map(([target, extra]): Attempt => ({ aim: 'odd headers', how: `headers ${extra.map(([n, v]) => `${n}: ${v.slice(0, 30)}`).join(', ')}`, method: 'GET', target, headers: [['X-Forwarded-For', ADDRESSES[0]!], ...extra], authenticated: false, mustRefuse: false, routedPage: true })),
    rawBytes(Buffer.from('POST /console/sign-in HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nab'), Buffer.from(`GET /console HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)),
  )
  return fc.oneof({ weight: 14, arbitrary: routed }, { weight: 3, arbitrary: consentAttempts(f, address) }, { weight: 1, arbitrary: odd })
}


describe('hostile console, settings and consent page requests (fuzz)', () => {
  const fixture = fixtureOfSuite()

  test(`${PAGE_RUNS} hostile page requests: no 5xx, HTML error pages, no stack trace, nothing written but failed sign-ins in the audit trail`, async () => {
    const f = fixture()
    const before = await failedSignIns(f.server.dbPath)
    const tally = await runHostile(f, 'pages', f.publicPort, pageAttempts(f), PAGE_RUNS, checkPage)
    console.log(`pages: ${(await failedSignIns(f.server.dbPath)) - before} wrong passwords audited as sign_in.failed`)
    // With enough requests, every page route and both consent flows were aimed at.
    const aims = [...pageRoutes().map((r) => `${r.method} ${r.path}`), ...['GET', 'POST'].flatMap((m) => [`${m} /oauth/authorize`, `${m} /oauth/authenticate`])]
    if (PAGE_RUNS >= 40 * aims.length) assert.deepEqual(aims.filter((aim) => !tally.byAim.has(aim)), [], 'pages never reached')
    assert.ok(tally.sent === 0 || tally.authenticated > tally.sent / 3, 'many requests reach the validators')
    // The sessions still work: nothing the fuzzer sent signed anyone out.
    for (const person of f.people) {
      const home = await pageGet(f.publicPort, '/console', person.cookie)
      assert.equal(home.status, 200)
      assert.ok(home.body.includes(`@${person.screenName}`), `@${person.screenName} is still signed in`)
    }
  })
})
