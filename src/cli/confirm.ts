import { createInterface } from 'node:readline/promises'
import { stdin, stdout } from 'node:process'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'

/**
 * Before a change that cannot be undone: at a terminal, says what it will do and asks; anything
 * but `y` or `yes` gives up. Not at a terminal (a script) and with `--yes`, it goes ahead.
 */
export async function confirmAtTerminal(what: string, options: { yes?: boolean }): Promise<void> {
  if (options.yes || !stdin.isTTY) return
  const prompt = createInterface({ input: stdin, output: stdout })
  try {
    const answer = await prompt.question(`${what}\nGo ahead? [y/N] `)
    if (!/^y(es)?$/i.test(answer.trim())) throw new ServiceError(E.invalidParameter, { message: 'nothing changed (not confirmed; --yes skips the question)' })
  } finally {
    prompt.close()
  }
}
