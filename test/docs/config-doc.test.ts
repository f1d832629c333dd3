import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { renderConfigDoc } from '../../scripts/config-doc.ts'

test('docs/config.md lists every setting as the settings table has it (run npm run docs:config)', () => {
  assert.equal(readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8'), renderConfigDoc())
})
