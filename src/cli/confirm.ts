import { createInterface } from 'node:readline/promises'
import { stdin, stdout } from 'node:process'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'

/**
 * Before a change that cannot be undone: at a terminal, says what it will do and asks; anything
 * but `y` or `yes` gives up. With `--yes` it goes ahead. Not at a terminal (a script), it goes
 * ahead, or, with `offTerminal: 'refuse'`, gives up unless `--yes` says otherwise.
 */
export async function confirmAtTerminal(what: string, options: { yes?: boolean }, offTerminal: 'go ahead' | 'refuse' = 'go ahead'): Promise<void> {
  if (options.yes) return
  if (!stdin.isTTY) {
    if (offTerminal === 'refuse') throw new ServiceError(E.invalidParameter, { message: `nothing changed: ${what} Not at a terminal, nobody could be asked: --yes says go ahead` })
    return
  }
  const prompt = createInterface({ input: stdin, output: stdout })
  try {
    const answer = await prompt.question(`${what}\nGo ahead? [y/N] `)
    if (!/^y(es)?$/i.test(answer.trim())) throw new ServiceError(E.invalidParameter, { message: 'nothing changed (not confirmed; --yes skips the question)' })
  } finally {
    prompt.close()
  }
}
