import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { consentInBrowser } from './consent-pages.ts'
import { REPO_ROOT } from './cli.ts'

/**
 * Runs `node examples/pin-flow.mjs …` as the README and the front door write it: when it prints the
 * link, a person opens it, signs in and allows (over plain HTTP, consent-pages.ts), and types the PIN
 * the page shows at its prompt, or `typo` in its place. Resolves with everything it printed; fails
 * unless it exits 0 (1 with a typo).
 */
export async function runPinCommand(command: string, person: { username: string; password: string }, typo?: string): Promise<string> {
  const [program, ...args] = command.trim().split(/\s+/)
  assert.equal(program, 'node')
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  for await (const line of createInterface({ input: child.stdout })) {
    output += `${line}\n`
    const link = /^Open (\S+) in a browser/.exec(line)
    if (!link) continue
    const outcome = await consentInBrowser(link[1]!, person)
    assert.equal(outcome.kind, 'pin', output)
    child.stdin.end(`${typo ?? (outcome.kind === 'pin' ? outcome.pin : '')}\n`)
  }
  assert.equal(await exited, typo === undefined ? 0 : 1, output)
  return output
}
