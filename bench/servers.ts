import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, copyFileSync, existsSync, openSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Server on CPU 0, load generator (and this process) on CPU 1, when taskset and two cores exist. */
export const CPU = { server: 0, client: 1 } as const

export function canPin(): boolean {
  return availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0
}

/** The command under `taskset -c <cpu>` (taskset execs it: the pid stays the command's). */
export function pinned(cpu: number | undefined, command: string[]): [string, string[]] {
  return cpu === undefined ? [command[0]!, command.slice(1)] : ['taskset', ['-c', String(cpu), ...command]]
}

/** Clock ticks per second, the unit of /proc/<pid>/stat times. */
export function clockTicksPerSecond(): number {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim())
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100
}

/** The environment without LATCHKEY_* settings, plus `extra`. */
export function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('LATCHKEY_')))
  return { ...env, ...extra }
}

export interface ServerProcess {
  pid: number
  host: string
  port: number
  url: string
  /** stdout and stderr of the process (Latchkey's JSON log lines). */
  logFile: string
  stop(timeoutMs?: number): Promise<number | null>
}

/**
 * Starts a server with its output going to a file (so that nobody competes for a core reading its
 * log) and resolves once the file shows `pattern` with the URL it listens on.
 */
export async function startServer(options: {
  command: string[]
  env: NodeJS.ProcessEnv
  cpu: number | undefined
  logFile: string
  pattern: RegExp
  timeoutMs?: number
}): Promise<ServerProcess> {
  const fd = openSync(options.logFile, 'a')
  const [file, args] = pinned(options.cpu, options.command)
  const child = spawn(file, args, { cwd: REPO_ROOT, env: options.env, stdio: ['ignore', fd, fd] })
  closeSync(fd)
  const url = await waitForUrl(child, options.logFile, options.pattern, options.timeoutMs ?? 120_000)
  const { hostname, port } = new URL(url)
  return {
    pid: child.pid!,
    host: hostname,
    port: Number(port),
    url,
    logFile: options.logFile,
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      const exited = once(child, 'exit') as Promise<[number | null]>
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
      const [code] = await exited
      clearTimeout(timer)
      return code
    },
  }
}

async function waitForUrl(child: ChildProcess, logFile: string, pattern: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''
    const match = pattern.exec(text)
    if (match) return match[1]!
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      if (child.exitCode === null) child.kill('SIGKILL')
      throw new Error(`the server did not start (${child.exitCode ?? child.signalCode ?? 'timeout'}): ${text.slice(-2000)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export type Runtime = 'tsx' | 'dist'

/** Where `--server dist` compiles the current sources (as `npm run build` would, without touching dist/). */
const BUILD_DIR = join(REPO_ROOT, 'node_modules/.cache/latchkey-bench/dist')

/** Compiles src/ with tsconfig.build.json into BUILD_DIR; throws with tsc's output on failure. */
export function buildSources(): void {
  const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', BUILD_DIR, '--declaration', 'false'], { cwd: REPO_ROOT, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`building the sources failed: ${result.stdout}${result.stderr}`)
  // Beside dist/ as in the package: the CLI reads its version from ../../package.json.
  copyFileSync(join(REPO_ROOT, 'package.json'), join(BUILD_DIR, '..', 'package.json'))
}

/**
 * `latchkey serve …`: from the sources through tsx (`node --import tsx src/cli/main.ts`), or
 * compiled JavaScript (call buildSources first) as an installed package runs it.
 */
export function latchkeyCommand(runtime: Runtime, serveArgs: string[], profileDir?: string): string[] {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []
  if (runtime === 'dist') return [process.execPath, ...profile, join(BUILD_DIR, 'cli/main.js'), 'serve', ...serveArgs]
  return [process.execPath, ...profile, '--import', 'tsx', 'src/cli/main.ts', 'serve', ...serveArgs]
}

/** A production server's start line, a JSON log line: `{…,"url":"http://127.0.0.1:PORT",…,"msg":"Latchkey is listening"}`. */
export const LATCHKEY_LISTENING = /^\{.*"url":"([^"]+)".*"msg":"Latchkey is listening"\}$/m
export const CEILING_LISTENING = /^listening on (\S+)/m

export function startCeiling(cpu: number | undefined, logFile: string): Promise<ServerProcess> {
  return startServer({
    command: [process.execPath, '--import', 'tsx', 'bench/ceiling.ts'],
    env: serverEnv({}),
    cpu,
    logFile,
    pattern: CEILING_LISTENING,
  })
}
