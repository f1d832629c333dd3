// Passwords for the CLI, never only on the command line: `--password` (which shell history and `ps`
// see, for scripts that accept that), `--password-stdin` (the first line of standard input), or a
// hidden prompt when a person is at a terminal.
import { stdin, stdout } from 'node:process'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'

export interface PasswordOptions {
  password?: string
  passwordStdin?: boolean
}

/** The first line of standard input, without its line ending. */
async function firstLineOfStdin(): Promise<string> {
  let text = ''
  for await (const chunk of stdin) {
    text += String(chunk)
    if (text.includes('\n')) break
  }
  return text.split(/\r?\n/)[0] ?? ''
}

/**
 * Asks on the terminal without echoing what is typed; Ctrl-C gives up. Echo goes off before the
 * question shows, so what is typed (or pasted) the moment it appears is never echoed.
 */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    stdin.setRawMode(true)
    stdout.write(question)
    stdin.resume()
    stdin.setEncoding('utf8')
    let typed = ''
    const finish = (error?: Error) => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.off('data', onData)
      stdout.write('\n')
      if (error) reject(error)
      else resolve(typed)
    }
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n') return finish()
        if (character === '\u0003') return finish(new ServiceError(E.invalidParameter, { message: 'no password given (interrupted)' }))
        if (character === '\u007f' || character === '\b') typed = typed.slice(0, -1)
        else if (character >= ' ') typed += character
      }
    }
    stdin.on('data', onData)
  })
}

/**
 * The password the options give, or asked for twice on a terminal when `required`; undefined when
 * none is given and none is required. Refused when both flags are given, or none on a non-terminal.
 */
export async function passwordFrom(options: PasswordOptions, { required }: { required: boolean }): Promise<string | undefined> {
  if (options.password !== undefined && options.passwordStdin) throw new ServiceError(E.invalidParameter, { message: 'give --password or --password-stdin, not both' })
  if (options.password !== undefined) return options.password
  if (options.passwordStdin) return firstLineOfStdin()
  if (!required) return undefined
  if (!stdin.isTTY) throw new ServiceError(E.invalidParameter, { message: 'no password: give --password-stdin (or --password), or run it at a terminal to be asked' })
  const password = await promptHidden('Password: ')
  const again = await promptHidden('Password again: ')
  if (password !== again) throw new ServiceError(E.invalidParameter, { message: 'the two passwords differ' })
  return password
}
