import fc from 'fast-check'
import type { Fixture } from './fixture.ts'
import { anyText, control, hugeString, invalidUtf8, nested, withControl, wrongType } from './hostile-input.ts'

// The admin API fuzz's bodies (test/admin/hostile-requests.test.ts): per operation, a body that would
// be accepted and the changes that each make it refused, then the transport's mischief on top.

type Json = unknown
/** An object as entries, so that a key may come twice (JSON.parse keeps the last). */
type Entries = Array<[string, Json]>

export interface BodyPlan {
  /** The entries of a body that would be accepted. */
  valid: (f: Fixture) => Entries
  /** Changes that each make it refused, whatever else the body holds. */
  breaks: (f: Fixture) => fc.Arbitrary<{ how: string; entries: (valid: Entries) => Entries }>
}

const setField = (name: string, value: Json) => (valid: Entries): Entries => [...valid, [name, value]]
const dropField = (name: string) => (valid: Entries): Entries => valid.filter(([k]) => k !== name)

const USER_BREAKS = (f: Fixture, isNew: boolean) =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...(isNew ? ['screen_name', 'password', 'name'] : ['name', 'password'])), wrongType('string')).map(([k, v]) => ({ how: `${k} of the wrong type`, entries: setField(k, v) })),
    withControl.map((v) => ({ how: 'name with a control character', entries: setField('name', v) })),
    fc.constantFrom('', 'x'.repeat(51)).map((v) => ({ how: 'name out of bounds', entries: setField('name', v) })),
    fc.constantFrom('not an address', 'a@b', '@example.org', `${'x'.repeat(250)}@example.org`, 'a@b.c\u0000', 5, true, []).map((v) => ({ how: 'email refused', entries: setField('email', v) })),
    hugeString.map((v) => ({ how: 'huge password', entries: setField('password', v) })),
    fc.constantFrom('short', '', '1234567').map((v) => ({ how: 'password too short', entries: setField('password', v) })),
    fc.tuple(fc.constantFrom('admin', 'id', 'user_id', 'screen_name_lower', 'NAME', '', 'name\u0000', '__proto__x', 'password_hash'), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
    ...(isNew
      ? [
          fc.oneof(fc.constantFrom('two words', 'a'.repeat(16), '', 'dash-ed', 'ümlaut', 'x\u0000', 'x\ud800'), withControl).map((v) => ({ how: 'screen_name not a screen name', entries: setField('screen_name', v) })),
          fc.constant({ how: 'screen_name taken', entries: setField('screen_name', f.screenNames[0]!.toUpperCase()) }),
          fc.constantFrom('screen_name', 'password').map((k) => ({ how: `${k} missing`, entries: dropField(k) })),
        ]
      : [
          fc.constant({ how: 'screen_name cannot change', entries: setField('screen_name', 'renamed') }),
          wrongType('boolean').map((v) => ({ how: 'disabled not a boolean', entries: setField('disabled', v) })),
          fc.constant({ how: 'empty patch', entries: () => [] }),
        ]),
  )

const APP_BREAKS = (f: Fixture, isNew: boolean) =>
  fc.oneof(
    fc.tuple(fc.constantFrom('name', 'type', 'access_level', 'description', 'website'), wrongType('string')).map(([k, v]) => ({ how: `${k} of the wrong type`, entries: setField(k, v) })),
    fc.tuple(fc.constantFrom('sign_in', 'resource_server', ...(isNew ? [] : ['suspended'])), wrongType('boolean')).map(([k, v]) => ({ how: `${k} not a boolean`, entries: setField(k, v) })),
    fc.tuple(fc.constantFrom('callbacks', 'signature_methods'), wrongType('array')).map(([k, v]) => ({ how: `${k} not an array`, entries: setField(k, v) })),
    fc.tuple(fc.constantFrom('name', 'description', 'website'), withControl).map(([k, v]) => ({ how: `${k} with a control character`, entries: setField(k, k === 'website' ? `https://ok.example/${v}` : v) })),
    fc.constantFrom('', '   ', 'n'.repeat(65)).map((v) => ({ how: 'name out of bounds', entries: setField('name', v) })),
    hugeString.map((v) => ({ how: 'huge description', entries: setField('description', v) })),
    fc.constantFrom('javascript:alert(1)', 'ftp://x.example', 'https://a b.example', '//no-scheme.example', 'x'.repeat(1025)).map((v) => ({ how: 'website not http', entries: setField('website', v) })),
    fc
      .constantFrom(['/relative'], ['https://ok.example/cb#frag'], ['javascript:alert(1)'], [''], ['https://ok.example/\u0000'], Array.from({ length: 11 }, (_, i) => `https://ok.example/${i}`), [5], [null], ['x'.repeat(1025)])
      .map((v) => ({ how: 'callbacks refused', entries: setField('callbacks', v) })),
    fc.constantFrom('mobile', '', 'WEB', 'web\u0000').map((v) => ({ how: 'type unknown', entries: setField('type', v) })),
    fc.constantFrom('admin', 'READ', '', 'read-write-everything').map((v) => ({ how: 'access level unknown', entries: setField('access_level', v) })),
    fc.constantFrom([], ['RSA-SHA1'], ['HMAC-SHA1', 'HMAC-SHA1'], ['hmac-sha1', 'x', 'y', 'z'], [1]).map((v) => ({ how: 'signature methods refused', entries: setField('signature_methods', v) })),
    fc.tuple(fc.constantFrom('consumer_secret', 'consumer_key', 'app_id', 'created_at', 'id', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
    ...(isNew
      ? [
          fc.constantFrom('42', '0', '99999999999999999999', f.deletedAppId, 'abc', '', '1e3', ' 1').map((v) => ({ how: 'owner unknown or not an id', entries: setField('owner', v) })),
          wrongType('string').map((v) => ({ how: 'owner not a string', entries: setField('owner', v) })),
          // Only these two are required: the rest have the defaults of APP_DEFAULTS.
          fc.constantFrom('name', 'owner').map((k) => ({ how: `${k} missing`, entries: dropField(k) })),
          // The same name as an app of the owner (any case): 409.
          fc.constant({ how: 'name taken', entries: setField('name', 'FUZZ WEB') }),
        ]
      : [
          fc.constant({ how: 'owner cannot change', entries: setField('owner', f.userIds[1]!) }),
          fc.constant({ how: 'empty patch', entries: () => [] }),
        ]),
  )

export const BODY_PLANS: Record<string, BodyPlan> = {
  createUser: { valid: () => [['screen_name', 'fuzz_new'], ['password', 'long enough 1'], ['name', 'New']], breaks: (f) => USER_BREAKS(f, true) },
  updateUser: { valid: () => [['name', 'Renamed']], breaks: (f) => USER_BREAKS(f, false) },
  // Only the body as a whole can be refused: a bad entry is answered as refused at its index (200), and imports nothing.
  importUsers: {
    valid: () => [['users', [{ screen_name: 'fuzz_imported', password_hash: '$2b$04$abcdefghijklmnopqrstuuK2G8q9L4t1E8c7v6b5n4m3l2k1j0hGe' }]]],
    breaks: () =>
      fc.oneof(
        wrongType('array').map((v) => ({ how: 'users not an array', entries: setField('users', v) })),
        fc.constantFrom(0, 501).map((n) => ({ how: 'users empty or too many', entries: setField('users', Array.from({ length: n }, () => ({}))) })),
        fc.constant({ how: 'users missing', entries: dropField('users') }),
        fc.tuple(fc.constantFrom('people', 'dry_run', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
      ),
  },
  createApp: {
    valid: (f) => [['name', 'Fuzz made'], ['owner', f.userIds[0]!], ['callbacks', ['https://ok.example/cb']], ['type', 'web'], ['sign_in', false], ['access_level', 'read'], ['description', 'd'], ['website', 'https://ok.example']],
    breaks: (f) => APP_BREAKS(f, true),
  },
  updateApp: { valid: () => [['description', 'changed']], breaks: (f) => APP_BREAKS(f, false) },
  rotateKeys: {
    valid: () => [['grace_seconds', 60]],
    breaks: () =>
      fc.oneof(
        fc.constantFrom(0, -1, 604801, 1.5, 1e20, '60', null, true, [60]).map((v) => ({ how: 'grace_seconds refused', entries: setField('grace_seconds', v) })),
        wrongType('boolean').map((v) => ({ how: 'revoke_tokens not a boolean', entries: setField('revoke_tokens', v) })),
        fc.tuple(fc.constantFrom('grace', 'revoke', 'keys', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
      ),
  },
  addWebhook: {
    valid: () => [['url', 'https://rs.example/hook']],
    breaks: (f) =>
      fc.oneof(
        wrongType('string').map((v) => ({ how: 'url of the wrong type', entries: setField('url', v) })),
        withControl.map((v) => ({ how: 'url with a control character', entries: setField('url', `https://rs.example/${v}`) })),
        fc.constantFrom('', 'ftp://rs.example/hook', 'javascript:alert(1)', '//rs.example', 'https://u:p@rs.example/', 'https://rs.example/#x', `https://rs.example/${'x'.repeat(2049)}`).map((v) => ({ how: 'url refused', entries: setField('url', v) })),
        fc.constantFrom('42', '0', f.deletedAppId, 'abc', '', ' 1').map((v) => ({ how: 'app_id unknown or not an id', entries: setField('app_id', v) })),
        fc.tuple(fc.constantFrom('secret', 'id', 'verified', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
        fc.constant({ how: 'url missing', entries: dropField('url') }),
      ),
  },
  replayWebhook: {
    valid: () => [['failed', true]],
    breaks: () =>
      fc.oneof(
        fc.constantFrom(false, 'true', 1, null).map((v) => ({ how: 'failed refused', entries: setField('failed', v) })),
        fc.constantFrom('yesterday', '', '2026-13-01T00:00:00Z', 5).map((v) => ({ how: 'since refused', entries: setField('since', v) })),
        fc.tuple(fc.constantFrom('until', 'all', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
      ),
  },
  rotateClientSecret: {
    valid: () => [['grace_seconds', 60]],
    breaks: () =>
      fc.oneof(
        fc.constantFrom(0, -1, 604801, 1.5, 1e20, '60', null, true, [60]).map((v) => ({ how: 'grace_seconds refused', entries: setField('grace_seconds', v) })),
        fc.tuple(fc.constantFrom('grace', 'revoke_tokens', 'client_secret', ''), anyText).map(([k, v]) => ({ how: 'unknown field', entries: setField(k, v) })),
      ),
  },
}

/** The operations of the OpenAPI document this fuzzer knows; a new one fails the test until it is added here. */
export const KNOWN_OPERATIONS = new Set([
  'createUser',
  'listUsers',
  'getUser',
  'updateUser',
  'importUsers',
  'listAuthorizations',
  'revokeAuthorization',
  'createApp',
  'listApps',
  'getApp',
  'updateApp',
  'deleteApp',
  'rotateKeys',
  'rotateClientSecret',
  'issueOwnerToken',
  'revokeBearerToken',
  'listAuditEvents',
  'addWebhook',
  'listWebhooks',
  'getWebhook',
  'verifyWebhook',
  'replayWebhook',
  'removeWebhook',
  'unlinkIdentity',
  'getLoginChallenge',
  'acceptLoginChallenge',
  'rejectLoginChallenge',
])

export const serialize = (entries: Entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`

/** The JSON text of a broken body, and the transport's mischief on top of it. */
export function jsonText(f: Fixture, plan: BodyPlan): fc.Arbitrary<{ how: string; body: Buffer }> {
  const broken = plan.breaks(f).map((b) => ({ how: b.how, entries: b.entries(plan.valid(f)) }))
  return fc.oneof(
    { weight: 4, arbitrary: broken.map((b) => ({ how: b.how, body: Buffer.from(serialize(b.entries)) })) },
    // The broken value first, then every valid field again: duplicate keys whose last copy is the valid one
    // would be accepted, so the broken one is always the last of its name.
    {
      weight: 1,
      arbitrary: broken
        .filter((b) => b.entries.length > plan.valid(f).length)
        .map((b) => ({ how: `${b.how}, duplicate keys`, body: Buffer.from(serialize([...plan.valid(f), ...b.entries])) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, fc.nat()).map(([b, at]) => {
        // A strict prefix, never empty: an empty body is no body, which rotate-keys and rotate-client-secret accept.
        const text = serialize(b.entries)
        return { how: 'truncated JSON', body: Buffer.from(text.slice(0, 1 + (at % (text.length - 1)))) }
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, control).map(([b, c]) => ({ how: 'raw control character inside a JSON string', body: Buffer.from(serialize(b.entries).replace(/":"/, `":"${c}`)) })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, invalidUtf8).map(([b, bytes]) => {
        const text = serialize(b.entries)
        const at = text.indexOf('":"') + 3
        return { how: 'invalid UTF-8 inside a JSON string', body: at > 2 ? Buffer.concat([Buffer.from(text.slice(0, at)), bytes, Buffer.from(text.slice(at))]) : Buffer.concat([bytes, Buffer.from(text)]) }
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(broken, fc.constantFrom('\ufeff', ' \n\t', '')).map(([b, prefix]) => ({ how: 'BOM or whitespace, then a broken body', body: Buffer.from(`${prefix}${serialize(b.entries)}${prefix}`) })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(1, 100, 5_000, 30_000).map((depth) => ({ how: `nested ${depth} deep`, body: Buffer.from(`{"name":${nested(depth)}}`) })),
    },
    { weight: 1, arbitrary: fc.constantFrom(1, 1000, 30_000).map((depth) => ({ how: `top-level array nested ${depth} deep`, body: Buffer.from(nested(depth, serialize(plan.valid(f)))) })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{"__proto__":{"admin":true}}',
          '{"constructor":{"prototype":{"admin":true}}}',
          "{'name':'x'}",
          '{"name":"x",}',
          '{"name":NaN}',
          '{"name":Infinity}',
          '{"name":0x10}',
          '{"name":"x"} {"name":"y"}',
          '{"name":"x"/*c*/}',
          '{"name":"\\x41"}',
          '{"name":1e999}',
          'null',
          'true',
          '"a string"',
          '[]',
          '0',
          '{}}',
          '{',
        )
        .map((text) => ({ how: `hostile JSON text ${text}`, body: Buffer.from(text) })),
    },
    { weight: 1, arbitrary: fc.constantFrom(65 * 1024, 70_000, 200_000).map((n) => ({ how: `${n}-byte body`, body: Buffer.from(`{"name":"${'x'.repeat(n)}"}`) })) },
    // At least a byte: an empty body is no body (see truncated JSON).
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => ({ how: 'random bytes', body: Buffer.from(bytes) })) },
  )
}

export const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/problem+json', 'text/json', '', 'application/json\u0001']

