// Every command the README shows in its `sh` blocks, and every `$ curl` of its and docs/metrics.md's
// console transcripts, run as written against a development server, in their order. (The other
// docs' commands are the project's own tools, npm run bench and npm run mutate, minutes each: the
// bench's smoke test and the mutation runs themselves exercise them.) Only what a reader would
// fill in is replaced: `<app>` (the app the README's own `app create` made), `<consumer key>` and
// `<consumer secret>` (the demo's), $ADMIN_TOKEN (the development admin token) and the ports of
// 127.0.0.1:8080 and :8081 (this server's). `npm run -s latchkey --` runs as the installed command,
// `node bin/latchkey.js` (the README says they are the same), from a folder of its own.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { REPO_ROOT, cliEnv } from '../helpers/cli.ts'
import { runPinCommand } from '../helpers/pin-command.ts'
import { startServe } from '../helpers/serve-process.ts'

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
const METRICS_DOC = readFileSync(join(REPO_ROOT, 'docs', 'metrics.md'), 'utf8')
/** The set-up block's commands: what CI itself runs. */
const SET_UP = new Set(['npm install && npm start', 'npm test'])

/** The commands of the README's `sh` blocks (continuation lines joined) and its `$ curl` transcript lines. */
function readmeCommands(markdown: string): string[] {
  const commands: string[] = []
  for (const [, language, body] of markdown.matchAll(/```(sh|console)\n([\s\S]*?)```/g)) {
    const lines = body!.replace(/\\\n\s*/g, '').split('\n')
    for (const line of lines) {
      const command = language === 'console' ? /^\$ (curl .*)$/.exec(line)?.[1] : line.replace(/\s+#.*$/, '').trim()
      if (command && !command.startsWith('#') && !SET_UP.has(command)) commands.push(command)
    }
  }
  return commands
}

const dir = mkdtempSync(join(tmpdir(), 'latchkey-readme-'))
const env = { LATCHKEY_DATABASE_URL: join(dir, 'readme.sqlite') }
after(() => rmSync(dir, { recursive: true, force: true }))

describe('the README and the docs', () => {
  test('its commands are found: the tour, the PIN flow, the admin API and the metrics', () => {
    const commands = readmeCommands(README)
    assert.ok(commands.some((c) => c.startsWith('npm run -s latchkey -- user create')))
    assert.ok(commands.some((c) => c.startsWith('node examples/pin-flow.mjs')))
    assert.ok(commands.some((c) => c.startsWith('curl -s -X POST http://127.0.0.1:8081/admin/v1/apps')))
    assert.ok(commands.some((c) => c.includes('/readyz')))
    assert.ok(commands.every((c) => !c.includes('\\')), 'continuation lines joined')
    assert.deepEqual(readmeCommands(METRICS_DOC), ['curl -s http://127.0.0.1:8080/metrics | grep latchkey_oauth1_verifications_total'])
  })

  test('every command it shows works as written, in its order, against a development server', async (ctx) => {
    // --metrics-public for docs/metrics.md's example; the README's commands do not mind it.
    const server = await startServe(['--dev', '--port', '0', '--metrics-public'], env)
    ctx.after(() => server.stop())
    const banner = server.output()
    const adminUrl = /Admin API is listening on (\S+)/.exec(banner)![1]!
    const demo = {
      password: /sign in as\s+demo \/ (\S+)/.exec(banner)![1]!,
      consumerKey: /consumer key\s+(\S+)/.exec(banner)![1]!,
      consumerSecret: /consumer secret\s+(\S+)/.exec(banner)![1]!,
      adminToken: /admin token\s+(\S+)/.exec(banner)![1]!,
    }
    let app: string | undefined
    const shellEnv = { ...cliEnv(env), ADMIN_TOKEN: demo.adminToken }

    for (const written of [...readmeCommands(README), ...readmeCommands(METRICS_DOC)]) {
      if (written.includes('<app>')) assert.ok(app, `the README makes an app before: ${written}`)
      const command = written
        .replaceAll('npm run -s latchkey --', `${process.execPath} ${join(REPO_ROOT, 'bin/latchkey.js')}`)
        .replaceAll('<app>', app ?? '')
        .replaceAll('<consumer key>', demo.consumerKey)
        .replaceAll('<consumer secret>', demo.consumerSecret)
        .replaceAll('http://127.0.0.1:8080', server.url)
        .replaceAll('http://127.0.0.1:8081', adminUrl)
      if (written.startsWith('node examples/pin-flow.mjs')) {
        assert.match(await runPinCommand(command, { username: 'demo', password: demo.password }), /verify_credentials says: signed in as @demo/)
        continue
      }
      const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', command], { cwd: dir, env: shellEnv, encoding: 'utf8' })
      assert.equal(run.status, 0, `${written}\n${run.stdout}${run.stderr}`)
      assert.doesNotMatch(run.stdout, /"errors"|"status":\s*[45]\d\d/, written)
      if (written.includes('app create') && written.includes('--json')) app = (JSON.parse(run.stdout) as { app_id: string }).app_id
    }
    assert.ok(app)
  })
})
