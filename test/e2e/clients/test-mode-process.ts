// `latchkey serve --test` as a client's test suite runs it (the built CLI, a real process), with
// what the recipes need from its admin API: a person, an app with an OAuth 2.0 client, and the
// consent control calls. Nothing of Latchkey is imported: everything goes over HTTP.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { REPO_ROOT, cliEnv } from '../../helpers/cli.ts'

export interface TestModeServer {
  url: string
  adminUrl: string
  /** An admin API call with the start line's token; the answer's status and JSON. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON, asserted by the caller
  stop(): Promise<void>
}

export interface RecipeApp {
  consumerKey: string
  consumerSecret: string
  clientId: string
  clientSecret: string
}

export async function startTestMode(): Promise<TestModeServer> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/latchkey.js'), 'serve', '--test'], { cwd: REPO_ROOT, env: cliEnv({}) })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
  const line = await new Promise<{ url: string; admin_url: string; admin_token: string }>((resolve, reject) => {
    // A server that never answers (a slow machine) must not outlive the test that waited for it.
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no start line within 30 s: ${stderr}`))), 30_000)
    createInterface({ input: child.stdout }).once('line', (text) => (clearTimeout(timer), resolve(JSON.parse(text))))
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`serve --test exited ${code} before its start line: ${stderr}`))))
  })
  return {
    url: line.url,
    adminUrl: line.admin_url,
    async admin(method, path, body) {
      const answer = await fetch(`${line.admin_url}${path}`, {
        method,
        headers: { authorization: `Bearer ${line.admin_token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await answer.text()
      return { status: answer.status, json: text ? JSON.parse(text) : undefined }
    },
    stop: () => stopChild(child),
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const closed = once(child, 'close')
  child.kill('SIGTERM')
  await closed
}

/** A person and a web app of theirs with callback `callback`, OAuth 2.0 on (confidential). */
export async function createRecipeApp(server: TestModeServer, screenName: string, callback: string): Promise<RecipeApp> {
  const person = await server.admin('POST', '/admin/v1/users', { screen_name: screenName, password: 'a long test password 1', name: `${screenName} Example` })
  if (person.status !== 201) throw new Error(`creating the person: ${person.status} ${JSON.stringify(person.json)}`)
  const app = await server.admin('POST', '/admin/v1/apps', { name: `${screenName}'s app`, owner: screenName, callbacks: [callback], oauth2_enabled: true, client_type: 'confidential' })
  if (app.status !== 201) throw new Error(`creating the app: ${app.status} ${JSON.stringify(app.json)}`)
  return { consumerKey: app.json.consumer_key, consumerSecret: app.json.consumer_secret, clientId: app.json.client_id, clientSecret: app.json.client_secret }
}

/** The person allows: OAuth 1.0a by request token (the callback with the verifier, or the PIN). */
export async function allowOAuth1(server: TestModeServer, screenName: string, oauthToken: string): Promise<string> {
  const answer = await server.admin('POST', '/admin/v1/test/consent/oauth1', { oauth_token: oauthToken, screen_name: screenName, decision: 'allow' })
  if (answer.status !== 200) throw new Error(`consent: ${answer.status} ${JSON.stringify(answer.json)}`)
  return answer.json.location ?? answer.json.pin
}

/** The person allows an OAuth 2.0 authorize URL: the redirect URI with code and state. */
export async function allowOAuth2(server: TestModeServer, screenName: string, authorizeUrl: string): Promise<string> {
  const answer = await server.admin('POST', '/admin/v1/test/consent/oauth2', { screen_name: screenName, decision: 'allow', authorize_url: authorizeUrl })
  if (answer.status !== 200) throw new Error(`consent: ${answer.status} ${JSON.stringify(answer.json)}`)
  return answer.json.location
}

/** Skips a test when the probe (a command) fails, except under CI=true, where the test runs and fails. */
export function toolSkip(command: string, args: string[], missing: string, env: Record<string, string> = {}): string | false {
  const isCi = /^(1|true|yes)$/i.test(process.env.CI ?? '')
  const probe = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, ...env } })
  return !isCi && (probe.error || probe.status !== 0) ? missing : false
}

/**
 * Runs an example program: it prints `AUTHORIZE <url>`, `answer` gives the line it reads back (the
 * callback URL or the PIN), and every `NAME value` line it prints after is returned by name.
 */
export function runRecipe(command: string, args: string[], answer: (authorizeUrl: string) => Promise<string>, env: Record<string, string> = {}): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    const printed: Record<string, string> = {}
    let output = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (output += chunk))
    child.on('error', reject)
    createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`
      const [name, ...rest] = line.split(' ')
      if (name === 'AUTHORIZE') answer(rest.join(' ')).then((typed) => child.stdin.write(`${typed}\n`), (error: unknown) => (child.kill(), reject(error)))
      else if (/^[A-Z_0-9]+$/.test(name!)) printed[name!] = rest.join(' ')
    })
    child.on('close', (code) => (code === 0 ? resolve(printed) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`))))
  })
}
