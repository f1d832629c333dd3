import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { TEST_MASTER_KEY } from './keys.ts'
import { staleBuild } from '../../scripts/build-freshness.mjs'

/** The repository root: the CLI runs from here. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The installed command, `bin/latchkey.js` over the compiled dist/: what a user runs, and a third of
 * the start-up of `node --import tsx src/cli/main.ts`. npm test builds dist/ first when src/ is newer.
 */
export const CLI_ARGS = ['bin/latchkey.js']

// A mutation run's sandbox (STRYKER_NAMESPACE set) is a fresh copy, src/ instrumented: its dist/ is
// the build of the tree Stryker copied, whatever the files' times say.
const stale = process.env.STRYKER_NAMESPACE ? undefined : staleBuild(REPO_ROOT)
if (stale) throw new Error(`dist/ is older than ${stale}: run \`npm run build\` (npm test builds it for you)`)

/**
 * The parent's environment without any LATCHKEY_* setting, plus the test master key and `extra`. The
 * admin API gets a free port: tests run in parallel, and --dev would otherwise take 8081 in each.
 */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('LATCHKEY_')))
  return { ...env, NO_COLOR: '1', LATCHKEY_MASTER_KEY: TEST_MASTER_KEY, LATCHKEY_ADMIN_PORT: '0', ...extra }
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the real `latchkey` command to completion; `input` is written to its standard input. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], { cwd: REPO_ROOT, env: cliEnv(env) })
    child.stdin.end(input ?? '')
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`

/**
 * Runs the real `latchkey` command at a terminal (a pseudo-terminal of util-linux's `script`), as a
 * person would: each answer is typed once its prompt has appeared. What the terminal showed is
 * `stdout` (stderr included; echoed input too, which a hidden prompt does not echo).
 */
export function runCliAtTerminal(args: string[], env: Record<string, string>, answers: Array<{ after: RegExp; type: string }>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, ...CLI_ARGS, ...args].map(quote).join(' ')
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: REPO_ROOT, env: cliEnv(env) })
    let stdout = ''
    let next = 0
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      while (next < answers.length && answers[next]!.after.test(stdout)) {
        child.stdin.write(`${answers[next]!.type}\r`)
        stdout += '\n'
        next++
      }
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr: '' }))
  })
}
