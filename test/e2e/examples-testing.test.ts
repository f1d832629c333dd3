// Issue 47 item 8: examples/testing/ — a node:test file, a Vitest file and a pytest conftest.py —
// run unmodified, as a user runs them, each against the test mode it starts itself.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { REPO_ROOT, cliEnv } from '../helpers/cli.ts'

/** Runs a command from the repository's root; its exit code and output. */
async function run(command: string, args: string[], env: Record<string, string> = {}) {
  // Not marked as a test run's child: node --test would take itself for a nested run and skip its files.
  const { NODE_TEST_CONTEXT: _nested, ...outside } = cliEnv({ PYTHONDONTWRITEBYTECODE: '1', NO_COLOR: '1', ...env })
  const child = spawn(command, args, { cwd: REPO_ROOT, env: outside })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const [code] = (await once(child, 'close')) as [number | null]
  return { code, output }
}

/** Debian's Python, where python3-pytest and python3-requests are installed (.ci/run). */
const PYTHON = '/usr/bin/python3'
const pytestMissing = async () => (existsSync(PYTHON) && (await run(PYTHON, ['-c', 'import pytest, requests'])).code === 0 ? undefined : 'Debian python3-pytest is not installed')

describe('examples/testing: the test kit from three test runners, unmodified', () => {
  test('node:test, with startLatchkey from latchkey/testing', async () => {
    const { code, output } = await run(process.execPath, ['--test', 'examples/testing/node-test.test.mjs'])
    assert.equal(code, 0, output)
    assert.match(output, /^# pass 2$/m)
  })

  test('Vitest, with startLatchkey from latchkey/testing', async () => {
    const { code, output } = await run(process.execPath, [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'examples/testing/vitest.test.mjs'])
    assert.equal(code, 0, output)
    assert.match(output, /Tests\s+2 passed \(2\)/)
  })

  test('pytest, with the conftest.py fixture that starts latchkey serve --test --seed', async (t) => {
    const missing = await pytestMissing()
    if (missing && !process.env.CI) return t.skip(missing)
    const { code, output } = await run(PYTHON, ['-m', 'pytest', 'examples/testing', '-q', '-p', 'no:cacheprovider'], {
      LATCHKEY_COMMAND: `${process.execPath} ${join(REPO_ROOT, 'bin/latchkey.js')}`,
    })
    assert.equal(code, 0, output)
    assert.match(output, /^2 passed/m)
  })
})
