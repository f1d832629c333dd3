import { Command, CommanderError } from 'commander'
import { applySeedFile, SeedError, type SeedResult } from '../../domain/test-kit/seed.ts'
import { withDomain } from '../context.ts'
import { print } from '../output.ts'

/** A few lines a person reads: who and what the seed made or found. */
function summary(result: SeedResult): string {
  const { access_tokens, bearer_tokens, oauth2_grants } = result.credentials
  return [
    `seeded ${result.people.length} people, ${result.apps.length} apps, ${access_tokens.length} access tokens, ${bearer_tokens.length} bearer tokens, ${oauth2_grants.length} OAuth 2.0 grants`,
    ...result.people.map((p) => `person @${p.screen_name} (${p.user_id})`),
    ...result.apps.map((a) => `app ${a.name} (${a.app_id}) consumer key ${a.consumer_key}${a.client_id ? `, client id ${a.client_id}` : ''}`),
    'every value, secrets included: latchkey seed FILE --json',
  ].join('\n')
}

export function seedCommand(): Command {
  return new Command('seed')
    .description('apply a seed file (docs/test-kit.md) to the database: people, apps and ready credentials; applying it again changes nothing')
    .argument('<file>', 'the seed file (JSON; docs/seed.schema.json)')
    .option('--json', 'print every person, app and credential with all its values')
    .action(async (file: string, options: { json?: boolean }, command: Command) => {
      try {
        const result = await withDomain(command, (deps) => applySeedFile(deps, file))
        print(!!options.json, result, () => summary(result))
      } catch (error) {
        if (!(error instanceof SeedError)) throw error
        // One line per bad field, each with its path: a seed's author fixes them all at once.
        for (const issue of error.issues) process.stderr.write(`latchkey: ${issue.path}: ${issue.reason.replace(/\s*\n\s*/g, ' ')}\n`)
        throw new CommanderError(1, 'latchkey.seed.refused', 'the seed was refused')
      }
    })
}
