// Issue 29 (3): no client input gives a 5xx on either backend, and a text field refuses control
// characters as the field's mistake. Table-driven over the admin API's own OpenAPI document: every
// string field of every request body (array items included), every string query parameter and
// every path parameter is sent with control characters, so a field added later is covered without
// touching this file. Runs on SQLite, and on PostgreSQL + Redis when LATCHKEY_TEST_DATABASE_URL and
// LATCHKEY_TEST_REDIS_URL are set (PostgreSQL refuses U+0000 in text: the case the issue found).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { renderAdminOpenApi } from '../../src/admin/app.ts'
import { ID, OWNER } from '../../src/admin/schemas.ts'
import { handOutBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import { injectedAdminTestServer, type AdminAnswer, type AdminTestServer } from '../helpers/admin.ts'
import { TEST_DATABASE_URL } from '../helpers/backends.ts'
import { newlyStoredControlCharacters, storedControlCharacters, tableContents } from '../helpers/stored-rows.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts'

interface Schema {
  type?: string | string[]
  enum?: unknown[]
  format?: string
  pattern?: string
  minimum?: number
  minItems?: number
  minProperties?: number
  required?: string[]
  properties?: Record<string, Schema>
  items?: Schema
}
interface Operation {
  operationId: string
  parameters?: Array<{ name: string; in: string; schema: Schema }>
  requestBody?: { content: Record<string, { schema: Schema }> }
}

/** One string the client chooses: where it goes, and its schema. */
interface TextField {
  operationId: string
  method: string
  /** The document's path template, `{user_id}` and all. */
  template: string
  in: 'body' | 'query' | 'path'
  /** `callbacks` for a body array's items, `name` otherwise. */
  name: string
  /** The value is one item of a body array of strings. */
  isItem: boolean
  schema: Schema
  /** The operation's body schema (body fields only): its required fields are filled in. */
  body?: Schema
  /** The operation's body schema, whichever field this is. */
  operation: { body?: Schema }
}

/** Characters sent in every field: NUL (PostgreSQL's 22021), BEL, ESC, DEL and NEL (C1). */
const CONTROLS = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085'] as const
const shown = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

/**
 * Fields whose value may legitimately hold a control character. Each is still never a 5xx, and the
 * character must never reach a row (every table is searched after the request).
 */
const ALLOWED: Record<string, string> = {
  // A password is never stored as text: it is hashed (scrypt over its UTF-8 bytes), so a NUL can
  // reach no database, and refusing characters would only narrow what a passphrase may hold. The
  // console takes the same passwords (test/pages/console/text-fields.test.ts).
  'createUser body password': 'hashed, never stored as text',
  'updateUser body password': 'hashed, never stored as text',
}

const keyOf = (f: Pick<TextField, 'operationId' | 'in' | 'name'>) => `${f.operationId} ${f.in} ${f.name}`
const isString = (s: Schema | undefined) => s !== undefined && (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string')))

/** Every string a client sends to the admin API, as the document describes the operations. */
function textFields(document: { paths: Record<string, Record<string, Operation>> }): TextField[] {
  const fields: TextField[] = []
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!operation.operationId) continue
      const body = operation.requestBody?.content['application/json']?.schema
      const at = { operationId: operation.operationId, method: method.toUpperCase(), template, operation: body ? { body } : {} }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query' && parameter.in !== 'path') continue
        if (isString(parameter.schema)) fields.push({ ...at, in: parameter.in, name: parameter.name, isItem: false, schema: parameter.schema })
      }
      for (const [name, schema] of Object.entries(body?.properties ?? {})) {
        if (isString(schema)) fields.push({ ...at, in: 'body', name, isItem: false, schema, body: body! })
        else if (schema.type === 'array' && isString(schema.items)) fields.push({ ...at, in: 'body', name, isItem: true, schema: schema.items!, body: body! })
        else assert.ok(schema.type !== 'object', `${keyOf({ ...at, in: 'body', name })}: a nested object; teach textFields to walk it`)
      }
    }
  }
  return fields
}

/** The records a field's requests are about: fresh for every field, so no request sees another's. */
interface Fixture {
  user: { user_id: string; screen_name: string }
  app: { app_id: string }
  /** A webhook endpoint whose receiver answers its CRC challenge. */
  webhook: { id: string }
  /** An upstream identity linked to the user, and a login challenge waiting for the platform's answer. */
  identity: { provider: string; subject: string }
  challenge: string
}

let made = 0
const freshScreenName = () => `tf${process.pid % 1000}_${++made}`

/** Clean values of string fields the schema alone does not say how to make. */
const SAMPLES: Record<string, string> = {
  password: 'a long enough password',
  name: 'Sample name',
  description: 'Sample description',
  website: 'https://ok.example/',
  callbacks: 'https://ok.example/cb',
  url: 'https://rs.example/hook',
  error: 'access_denied',
}

/** A value the field accepts, for this fixture (cursors are asked of the list itself). */
async function sample(field: Pick<TextField, 'name' | 'schema' | 'operationId' | 'template'>, fixture: Fixture, server: AdminTestServer): Promise<string> {
  const { name, schema } = field
  if (schema.enum) return String(schema.enum[0])
  if (schema.format === 'date-time') return '2020-01-01T00:00:00.000Z'
  if (schema.pattern === OWNER.pattern) return name === 'owner' ? fixture.user.user_id : assert.fail(`${name}: an owner of what? Add it to sample()`)
  if (name === 'provider') return fixture.identity.provider
  if (name === 'subject') return field.operationId === 'unlinkIdentity' ? fixture.identity.subject : 'platform-subject-1'
  if (name === 'challenge') return fixture.challenge
  if (schema.pattern === ID.pattern) {
    if (name === 'owner' || name === 'user_id') return fixture.user.user_id
    if (name === 'app_id') return fixture.app.app_id
    if (name === 'webhook_id') return fixture.webhook.id
    assert.fail(`${name}: an id of what? Add it to sample()`)
  }
  if (name === 'screen_name') return field.operationId === 'createUser' ? freshScreenName() : fixture.user.screen_name
  // E-mail addresses are unique: each request gets one of its own.
  if (name === 'email') return `${freshScreenName()}@example.org`
  if (name === 'cursor') {
    const first = await server.admin('GET', `${field.template}?limit=1`)
    assert.equal(first.status, 200, first.text)
    assert.equal(typeof first.json.next_cursor, 'string', `${field.template} has a second page`)
    return first.json.next_cursor as string
  }
  // A free-text field added later is tried with plain words; one with a pattern needs its own sample.
  const text = SAMPLES[name] ?? (schema.pattern === undefined ? 'Sample text' : undefined)
  assert.ok(text !== undefined, `${field.operationId} ${name}: no sample value; add one to SAMPLES`)
  return text
}

/** A clean value of any schema, for the required fields around the one under test. */
async function anyValue(name: string, schema: Schema, field: TextField, fixture: Fixture, server: AdminTestServer): Promise<unknown> {
  if (schema.type === 'boolean') return false
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1
  if (schema.type === 'array') return [await anyValue(name, schema.items ?? {}, field, fixture, server)]
  return sample({ ...field, name, schema }, fixture, server)
}

/** The request of `field` with `value` in it: every required body field, path parameter filled in. */
async function requestOf(field: TextField, value: string, fixture: Fixture, server: AdminTestServer): Promise<{ path: string; body: unknown }> {
  let path = field.template
  for (const [, parameter] of field.template.matchAll(/\{(\w+)\}/g)) {
    const filled = parameter === field.name && field.in === 'path' ? value : await sample({ ...field, name: parameter!, schema: ID }, fixture, server)
    path = path.replace(`{${parameter}}`, encodeURIComponent(filled))
  }
  if (field.in === 'query') path += `?${field.name}=${encodeURIComponent(value)}`
  let body: Record<string, unknown> | undefined
  if (field.body) {
    body = {}
    for (const name of field.body.required ?? []) {
      if (name !== field.name) body[name] = await anyValue(name, field.body.properties![name]!, field, fixture, server)
    }
    body[field.name] = field.isItem ? [value] : value
  } else if (field.operation.body) {
    // A path or query field of an operation with a body: the least body it takes.
    body = {}
    const properties = Object.entries(field.operation.body.properties ?? {})
    for (const [name, schema] of properties) {
      const isWanted = field.operation.body.required?.includes(name) || Object.keys(body).length < (field.operation.body.minProperties ?? 0)
      if (isWanted) body[name] = await anyValue(name, schema, field, fixture, server)
    }
  }
  return { path, body }
}

/** The value with a control character in its middle: only the character is wrong with it. */
const withControl = (value: string, control: string) => `${value.slice(0, Math.ceil(value.length / 2))}${control}${value.slice(Math.ceil(value.length / 2))}`

/** The tables a refused request could have written to, and every row of the two that text fields change. */
async function snapshot(server: AdminTestServer) {
  const contents = await tableContents(server.dbPath)
  // The admin token's row notes when it was last used; the rest must not move.
  delete contents.admin_tokens
  return contents
}

const namesField = (answer: AdminAnswer, name: string) =>
  ((answer.json?.errors ?? []) as Array<{ field: string }>).some((e) => e.field === name || e.field.startsWith(`${name}/`))

describe(`every string field of the admin API refuses control characters (${TEST_DATABASE_URL ? 'PostgreSQL + Redis' : 'SQLite'})`, () => {
  let server: AdminTestServer
  let fields: TextField[]
  let receiver: WebhookReceiver

  before(async () => {
    server = await injectedAdminTestServer()
    receiver = await startWebhookReceiver()
    const served = await server.admin('GET', '/admin/v1/openapi.json')
    assert.equal(served.status, 200)
    const { servers: _reachedAt, ...document } = served.json as Record<string, unknown>
    assert.deepEqual(document, JSON.parse(JSON.stringify(await renderAdminOpenApi())), 'the served document is the built one, but for its address')
    fields = textFields(served.json)
  })
  after(async () => {
    await receiver.close()
    await server.close()
  })

  async function freshFixture(): Promise<Fixture> {
    const made: Fixture[] = []
    // Two of each, so that every list has a second page (a real cursor to spoil).
    for (let i = 0; i < 2; i++) {
      const person = await server.admin('POST', '/admin/v1/users', { screen_name: freshScreenName(), password: SAMPLES.password })
      assert.equal(person.status, 201, person.text)
      const app = await server.admin('POST', '/admin/v1/apps', {
        name: 'Fixture app',
        owner: person.json.user_id,
        callbacks: [SAMPLES.callbacks],
        type: 'web',
        sign_in: false,
        access_level: 'read',
        oauth2_enabled: true,
      })
      assert.equal(app.status, 201, app.text)
      // An authorization and a bearer token, so that revoking either is a request that goes through.
      const owner = await server.admin('POST', `/admin/v1/apps/${app.json.app_id}/owner-token`)
      assert.equal(owner.status, 200, owner.text)
      await handOutBearerToken(server.domain, app.json.app_id, null)
      // A webhook the receiver answers for (the fixture's, the first), so that verifying it goes through.
      const webhook = await server.admin('POST', '/admin/v1/webhooks', { url: receiver.url })
      assert.equal(webhook.status, 201, webhook.text)
      if (i === 0) receiver.secret = webhook.json.secret
      // Written as a sign-in at a provider and a delegated login page's start write them.
      const nowMs = Date.now()
      const identity = { provider: 'corp', subject: `subject-${person.json.user_id}` }
      await server.domain.stores.identityLinks.create({ ...identity, userId: person.json.user_id, createdAtMs: nowMs })
      const challenge = `challenge${person.json.user_id}`
      await server.domain.stores.externalSignIns.create({ id: challenge, kind: 'delegation', provider: 'login', browser: 'a browser', returnTo: '/console', forceLogin: false, createdAtMs: nowMs, expiresAtMs: nowMs + 600_000 })
      made.push({ user: person.json, app: app.json, webhook: webhook.json, identity, challenge })
    }
    return made[0]!
  }

  test('the document yields the fields, the known ones among them, and the exceptions name real fields', (t) => {
    const keys = new Set(fields.map(keyOf))
    for (const known of [
      'createUser body screen_name',
      'createUser body name',
      'updateUser body name',
      'createApp body name',
      'createApp body description',
      'createApp body website',
      'createApp body callbacks',
      'updateApp body name',
      'listUsers query screen_name',
      'listApps query cursor',
      'listAuditEvents query since',
      'getApp path app_id',
    ]) {
      assert.ok(keys.has(known), `${known} is among ${[...keys].join(', ')}`)
    }
    for (const key of Object.keys(ALLOWED)) assert.ok(keys.has(key), `ALLOWED names ${key}, which the document does not have`)
    const count = (where: TextField['in']) => fields.filter((f) => f.in === where).length
    t.diagnostic(`${fields.length} fields: ${count('body')} body, ${count('query')} query, ${count('path')} path`)
    assert.ok(count('body') >= 10 && count('query') >= 5 && count('path') >= 5, `${fields.length} fields`)
  })

  test('a multi-line description keeps its tab and line breaks (they are not the refused characters)', async () => {
    const fixture = await freshFixture()
    const answer = await server.admin('PATCH', `/admin/v1/apps/${fixture.app.app_id}`, { description: 'one\ttwo\r\nthree\n' })
    assert.equal(answer.status, 200, answer.text)
    assert.equal(answer.json.description, 'one\ttwo\r\nthree\n')
  })

  // One test per field, made once the document is read: node:test runs `before` first, so the
  // fields are listed by the test below, which checks each in turn and names it on failure.
  test('each field: a control character is a 400 problem naming it and writes nothing; its clean value is accepted', async (t) => {
    assert.ok(fields.length > 0)
    for (const field of fields) {
      await t.test(`${keyOf(field)}${ALLOWED[keyOf(field)] ? ' (allowed: ' + ALLOWED[keyOf(field)] + ')' : ''}`, async () => {
        const fixture = await freshFixture()
        const clean = await sample(field, fixture, server)
        const before = await snapshot(server)
        const stored = await storedControlCharacters(server.dbPath)
        for (const control of CONTROLS) {
          const { path, body } = await requestOf(field, withControl(clean, control), fixture, server)
          const answer = await server.admin(field.method, path, body)
          const what = `${field.method} ${path} with ${shown(control)}: ${answer.status} ${answer.text}`
          assert.ok(answer.status < 500, what)
          if (ALLOWED[keyOf(field)]) {
            assert.ok(answer.status < 400, what)
            assert.deepEqual(await newlyStoredControlCharacters(server.dbPath, stored), [], `${what}: the character reached a row`)
            continue
          }
          assert.equal(answer.status, 400, what)
          assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8', what)
          assert.ok(namesField(answer, field.name), `${what}: the problem names ${field.name}`)
          assert.deepEqual(await snapshot(server), before, `${what}: nothing is written`)
        }
        // The same request without the character goes through: the character was all that was wrong.
        const { path, body } = await requestOf(field, clean, fixture, server)
        const answer = await server.admin(field.method, path, body)
        assert.ok(answer.status >= 200 && answer.status < 300, `${field.method} ${path} with the clean value: ${answer.status} ${answer.text}`)
      })
    }
    assert.deepEqual(await storedControlCharacters(server.dbPath), [], 'no row anywhere holds a control character')
  })
})
