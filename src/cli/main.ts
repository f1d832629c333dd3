#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { ConfigError } from '../config/load.ts'
import { ServiceError } from '../errors/service-error.ts'
import { DatabaseRefusedError, SealError, StorageUnavailableError } from '../storage/index.ts'
import { adminTokenCommand } from './commands/admin-tokens.ts'
import { webhookCommand } from './commands/webhooks.ts'
import { appCommand } from './commands/apps.ts'
import { auditCommand } from './commands/audit.ts'
import { backupCommand, copyCommand, restoreCommand } from './commands/data.ts'
import { demoCommand } from './commands/demo.ts'
import { keysCommand } from './commands/keys.ts'
import { seedCommand } from './commands/seed.ts'
import { migrateCommand, serveCommand } from './commands/serve.ts'
import { userCommand } from './commands/users.ts'

/** The `latchkey` command. Bad input: one line on stderr and exit 1, never a stack trace. */
export function buildProgram(): Command {
  const program = new Command('latchkey')
    .description('Latchkey: Twitter-compatible OAuth 1.0a and OAuth 2.0 token service')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--config <file>', 'JSON file of settings [env LATCHKEY_CONFIG]')
    .option('--database <url>', 'SQLite file path, sqlite: URL or postgres:// URL [env LATCHKEY_DATABASE_URL]')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`latchkey: ${oneLine(text.replace(/^error: /, ''))}\n`) })
  for (const command of [serveCommand(), migrateCommand(), userCommand(), appCommand(), keysCommand(), auditCommand(), adminTokenCommand(), webhookCommand(), backupCommand(), restoreCommand(), copyCommand(), demoCommand(), seedCommand()]) {
    program.addCommand(command)
  }
  for (const command of allCommands(program)) command.exitOverride().configureOutput(program.configureOutput())
  return program
}

/** The version in package.json, two folders up from this file in src/ and in dist/ alike. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version
}

/** Commander adds hints on lines of their own ("(Did you mean user?)"); bad input gets one line. */
function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ')
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((sub) => [sub, ...allCommands(sub)])
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode
    if (error instanceof ServiceError || error instanceof ConfigError || error instanceof StorageUnavailableError || error instanceof DatabaseRefusedError) {
      process.stderr.write(`latchkey: ${oneLine(error.message)}\n`)
    } else if (error instanceof SealError) {
      // A stored value the keyring cannot open (damaged at rest, or sealed under a retired key): say what mends it.
      process.stderr.write(`latchkey: ${oneLine(error.message)}: the master keyring cannot open it; give the app new keys (latchkey app rotate-keys <app>), or use the keyring it was sealed under\n`)
    } else {
      process.stderr.write(`latchkey: unexpected error: ${oneLine((error as Error)?.message ?? String(error))}\n`)
    }
    return 1
  }
}

const code = await main(process.argv.slice(2))
// serve keeps running; every other command ends here.
if (code !== 0 || !process.argv.slice(2).includes('serve')) process.exitCode = code
