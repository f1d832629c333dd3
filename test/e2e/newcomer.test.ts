// A newcomer's first hour, as the README tells it: `npm start`, open the front door, sign in as the
// demo person, open the OAuth tool, run the PIN flow and the bearer call the front door shows,
// restart, and get the demo back with `latchkey demo`.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { Browser, textOf } from '../helpers/browser.ts'
import { REPO_ROOT, runCli } from '../helpers/cli.ts'
import { runPinCommand } from '../helpers/pin-command.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-newcomer-'))
const database = join(dir, 'dev.sqlite')
const env = { LATCHKEY_DATABASE_URL: database }
const servers: ServeProcess[] = []
after(async () => {
  for (const server of servers) await server.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function serve(): Promise<ServeProcess> {
  const server = await startServe(['--dev', '--port', '0'], env)
  servers.push(server)
  return server
}

describe('a newcomer, from the front door', () => {
  test('npm start, the front door, the console and its OAuth tool, the PIN flow and a bearer call as shown, then the demo again', async () => {
    const first = await serve()
    const banner = first.output()
    assert.match(banner, new RegExp(`front door\\s+${first.url}/\\n`))
    assert.match(banner, new RegExp(`developer console\\s+${first.url}/console\\n`))
    assert.match(banner, /sign in as\s+demo \/ \S+/)

    const door = await fetch(`${first.url}/`)
    assert.equal(door.status, 200)
    const page = await door.text()
    const person = { username: textOf(page, 'demo_screen_name')!, password: textOf(page, 'demo_password')! }
    assert.equal(person.username, 'demo')
    assert.ok(banner.includes(`sign in as          demo / ${person.password}`), 'the front door shows the password the banner printed')

    // The console's OAuth tool, through the sign-in page it leads to.
    const toolPath = /<a href="([^"]+)" id="oauth_tool">/.exec(page)![1]!
    const browser = new Browser()
    const signInPage = await browser.get(`${first.url}${toolPath}`)
    assert.equal(signInPage.statusCode, 200)
    const signedIn = await browser.submit(signInPage, person, { name: 'next', value: toolPath })
    assert.equal(signedIn.statusCode, 302)
    const tool = await browser.get(new URL(String(signedIn.headers.location), first.url).href)
    assert.equal(tool.statusCode, 200)
    assert.match(tool.body, /OAuth tool/)

    // The PIN flow, as the page writes it.
    const pinOutput = await runPinCommand(textOf(page, 'pin_command')!, person)
    assert.match(pinOutput, /verify_credentials says: signed in as @demo/)
    // A mistyped PIN: X's refusal in one line, no stack trace.
    const typoOutput = await runPinCommand(textOf(page, 'pin_command')!, person, '0000000')
    assert.match(typoOutput, /^refused: HTTP 401 \{"errors":\[\{"code":32,/m)
    assert.doesNotMatch(typoOutput, /^\s+at /m)

    // The bearer call, as the page writes it, in a shell.
    const bearer = spawnSync('bash', ['-e', '-c', textOf(page, 'bearer_command')!], { cwd: REPO_ROOT, encoding: 'utf8' })
    assert.equal(bearer.status, 0, bearer.stderr)
    assert.match(bearer.stdout, /"resources"/)

    // A restart: the banner no longer prints the demo, but says where it is; `latchkey demo` shows it.
    assert.equal(await first.stop(), 0)
    // The access log is written apart from these lines, so an earlier request's line may come between.
    assert.match(first.output(), /\nSIGTERM: stopping, after the requests in flight\n(?:[\s\S]*\n)?Latchkey stopped\n/)
    const second = await serve()
    assert.doesNotMatch(second.output(), /sign in as/)
    assert.match(second.output(), /demo credentials\s+npm run -s latchkey -- demo/)
    const again = await runCli(['demo', '--json'], env)
    assert.equal(again.code, 0, again.stderr)
    const demo = JSON.parse(again.stdout) as Record<string, string>
    assert.equal(demo.sign_in, `demo / ${person.password}`)
    assert.match(banner, new RegExp(`consumer key\\s+${demo.consumer_key}\\n`))
    assert.equal(textOf(await (await fetch(`${second.url}/`)).text(), 'demo_password'), person.password)
    assert.equal(statSync(`${database}.demo.json`).mode & 0o777, 0o600, 'the demo file is its owner\'s only')
    assert.equal(await second.stop(), 0)
  })

  test('latchkey demo on a database the development server never started on says so in one line', async () => {
    const result = await runCli(['demo'], { LATCHKEY_DATABASE_URL: join(dir, 'never.sqlite') })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /^latchkey: no demo on \S+never\.sqlite: the first start of the development server \(npm start\) on an empty database makes one\n$/)
  })
})
