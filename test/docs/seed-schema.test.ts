import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { parseSeed } from '../../src/domain/test-kit/seed-check.ts'
import { SEED_SCHEMA_FILE, renderSeedSchema } from '../../scripts/seed-schema-doc.ts'

const published = () => JSON.parse(readFileSync(SEED_SCHEMA_FILE, 'utf8')) as object

/** The example seed of docs/test-kit.md. */
function exampleSeed(): Record<string, unknown> {
  const doc = readFileSync(new URL('../../docs/test-kit.md', import.meta.url), 'utf8')
  const block = /## Seed files[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)
  assert.ok(block, 'docs/test-kit.md has an example seed')
  return JSON.parse(block[1]!) as Record<string, unknown>
}

test('docs/seed.schema.json is the seed schema as the code has it (npm run docs:seed-schema)', () => {
  assert.equal(readFileSync(SEED_SCHEMA_FILE, 'utf8'), renderSeedSchema(), 'docs/seed.schema.json is stale')
})

test("the docs' example seed passes the published JSON Schema and the service's own checks", () => {
  const validate = new Ajv2020({ strict: false }).compile(published())
  const example = exampleSeed()
  assert.equal(validate(example), true, JSON.stringify(validate.errors))
  assert.doesNotThrow(() => parseSeed(example))
})

test('the published JSON Schema refuses what the service refuses by shape: an unknown field, a short consumer key, an unknown scope', () => {
  const validate = new Ajv2020({ strict: false }).compile(published())
  const apps = [{ name: 'App', owner: 'alice', consumer_key: 'short' }]
  const grants = [{ app: 'App', person: 'alice', scopes: ['no.such.scope'] }]
  for (const bad of [{ colour: 'blue' }, { apps }, { credentials: { oauth2_grants: grants } }]) {
    assert.equal(validate(bad), false, JSON.stringify(bad))
    assert.throws(() => parseSeed(bad))
  }
})
