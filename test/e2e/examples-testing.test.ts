// Issue 47 item 8: examples/testing/ — a node:test file, a Vitest file and a pytest conftest.py —
// run unmodified, as a user runs them, each against the test mode it starts itself.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
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

const SEED = join(REPO_ROOT, 'examples/testing/seed.json')

/** The pids of the processes still running the example's `serve --test --seed` (read from /proc). */
function serversLeft(): string[] {
  const started = `serve\0--test\0--seed\0${SEED}\0`
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(started)
    } catch {
      return false // gone meanwhile
    }
  })
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

  // npm run (as npx) starts the server under a shell that does not pass SIGTERM on: the fixture
  // signals the process group, so no server is left behind however it was started.
  for (const [how, command] of [
    ['the installed command', `${process.execPath} ${join(REPO_ROOT, 'bin/latchkey.js')}`],
    ['npm run', 'npm run -s latchkey --'],
  ] as const) {
    test(`pytest, with the conftest.py fixture that starts latchkey serve --test --seed through ${how}, and stops it`, async (t) => {
      const missing = await pytestMissing()
      if (missing && !process.env.CI) return t.skip(missing)
      t.after(() => serversLeft().forEach((pid) => process.kill(Number(pid), 'SIGKILL')))
      const { code, output } = await run(PYTHON, ['-m', 'pytest', 'examples/testing', '-q', '-p', 'no:cacheprovider'], { LATCHKEY_COMMAND: command })
      assert.equal(code, 0, output)
      assert.match(output, /^2 passed/m)
      // A server stopping drains first: a leaked one is still there after ten seconds.
      for (let waited = 0; serversLeft().length > 0 && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.deepEqual(serversLeft(), [])
    })
  }
})
