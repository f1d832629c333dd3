import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { staleBuild } from '../../scripts/build-freshness.mjs'

test('dist/ is built again when it is missing, older than a source, or cut short by a stopped build (an empty file with a fresh time)', () => {
  const root = mkdtempSync(join(tmpdir(), 'latchkey-build-freshness-'))
  try {
    const file = (path: string, text: string, seconds: number) => {
      mkdirSync(join(root, path, '..'), { recursive: true })
      writeFileSync(join(root, path), text)
      utimesSync(join(root, path), seconds, seconds)
    }
    file('src/cli/main.ts', 'export {}', 1_000)
    assert.match(String(staleBuild(root)), /there is no dist\/cli\/main\.js/)
    file('dist/cli/main.js', 'export {}', 2_000)
    file('dist/admin/routes/audit.js', 'export const auditRoutes = 1', 2_000)
    assert.equal(staleBuild(root), undefined)
    file('src/cli/main.ts', 'export {}', 3_000)
    assert.equal(staleBuild(root), 'src/cli/main.ts')
    file('dist/cli/main.js', 'export {}', 4_000)
    file('dist/admin/routes/audit.js', '', 4_000)
    assert.equal(staleBuild(root), 'its own dist/admin/routes/audit.js, which is empty (a build that was stopped)')
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
