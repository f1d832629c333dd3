import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { CLI_ARGS, REPO_ROOT, cliEnv } from './cli.ts'

export interface ServeProcess {
  child: ChildProcess
  /** The URL it says it listens on (listeningUrl). */
  url: string
  /** Everything printed so far (stdout and stderr), for assertions and failure messages. */
  output(): string
  /** SIGTERM, then the exit code (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>
}

/**
 * The URL a serve process says it listens on, from one line of its stdout: development's text line
 * (`Latchkey is listening on URL`) or production's JSON log line (`"msg":"Latchkey is listening"`).
 */
export function listeningUrl(line: string): string | undefined {
  const text = /^Latchkey is listening on (\S+)/.exec(line)
  if (text) return text[1]
  if (!line.startsWith('{') || !line.includes('"Latchkey is listening"')) return undefined
  const logged = JSON.parse(line) as { msg?: unknown; url?: unknown }
  return logged.msg === 'Latchkey is listening' && typeof logged.url === 'string' ? logged.url : undefined
}

/** Runs `latchkey serve ...args` (the real CLI) and resolves once it prints the URL it listens on. */
export async function startServe(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', ...args], { cwd: REPO_ROOT, env: cliEnv(env) })
  let text = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server that never listens (a slow machine) must not outlive the test that waited for it.
      child.kill('SIGKILL')
      reject(new Error(`serve did not listen within ${timeoutMs} ms: ${text}`))
    }, timeoutMs)
    createInterface({ input: child.stdout! }).on('line', (line) => {
      text += `${line}\n`
      const listening = listeningUrl(line)
      if (listening) {
        clearTimeout(timer)
        resolve(listening)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited with ${code} before listening: ${text}`))
    })
  })
  return {
    child,
    url,
    output: () => text,
    async stop(stopTimeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      // 'close', not 'exit': by then everything it printed has been read.
      const exited = once(child, 'close') as Promise<[number | null, string | null]>
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs)
      const [code] = await exited
      clearTimeout(timer)
      return code
    },
  }
}
