import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { E } from '../../src/errors/catalogue.ts'

test('docs/errors.md lists every code of the catalogue with its status', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  for (const [name, def] of Object.entries(E)) {
    assert.match(doc, new RegExp(`\\| ${def.status} \\| ${def.code} \\|`), `${name} (${def.status}/${def.code}) is not in docs/errors.md`)
  }
})
