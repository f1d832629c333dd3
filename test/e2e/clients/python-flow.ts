import { spawn, spawnSync } from 'node:child_process'
import { createInterface } from 'node:readline'

/** Debian's interpreter, not whatever python3 is first on PATH: the Debian package installs there. */
export const PYTHON = '/usr/bin/python3'

/**
 * Whether Debian's requests-oauthlib can be imported. Outside CI a missing package skips the Python
 * client tests with the reason; under CI=true they run and fail.
 */
export function pythonSkip(): { unavailable: string | undefined; skip: string | false } {
  const isCi = /^(1|true|yes)$/i.test(process.env.CI ?? '')
  const probe = spawnSync(PYTHON, ['-c', 'import requests_oauthlib'], { encoding: 'utf8' })
  const unavailable = probe.error || probe.status !== 0 ? `${PYTHON} cannot import requests_oauthlib (apt-get install python3-requests-oauthlib)` : undefined
  return { unavailable, skip: !isCi && unavailable ? unavailable : false }
}

/**
 * Runs the script; when it prints the authorization URL, `person` does the consent step and returns
 * the line to type back (the callback URL or the PIN). Resolves with the script's RESULT.
 */
export function runPythonFlow<R extends { error?: string; traceback?: string }>(
  script: string,
  args: string[],
  person: (authorizationUrl: string) => Promise<string>,
): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    let result: R | undefined
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
    child.on('error', reject)
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('AUTHORIZE ')) {
        person(line.slice('AUTHORIZE '.length)).then(
          (typed) => child.stdin.end(`${typed}\n`),
          (error: unknown) => {
            child.kill()
            reject(error)
          },
        )
      } else if (line.startsWith('RESULT ')) {
        result = JSON.parse(line.slice('RESULT '.length)) as R
      }
    })
    child.on('close', (code) => {
      if (!result) return reject(new Error(`the script exited ${code} without a result: ${stderr}`))
      if (result.error) return reject(new Error(`the script failed: ${result.error}\n${result.traceback ?? ''}`))
      resolve(result)
    })
  })
}

