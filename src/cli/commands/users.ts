import { Command } from 'commander'
import { endEveryBrowserSession } from '../../domain/browser-sessions.ts'
import { findUserByIdOrScreenName } from '../../domain/admin/people.ts'
import { createUser } from '../../domain/registry/users.ts'
import { withDomain } from '../context.ts'
import { print, userView } from '../output.ts'

export function userCommand(): Command {
  const user = new Command('user').description('people who can sign in and authorize apps')
  user
    .command('create')
    .description('register a person')
    .requiredOption('--screen-name <name>', '1 to 15 letters, digits or underscores')
    .requiredOption('--password <password>', 'at least 8 characters')
    .option('--name <text>', 'display name (defaults to the screen name)')
    .option('--json', 'print JSON')
    .action(async (options: { screenName: string; password: string; name?: string; json?: boolean }, command: Command) => {
      const created = await withDomain(command, (deps) =>
        createUser(deps, { screenName: options.screenName, password: options.password, name: options.name }),
      )
      print(!!options.json, { user_id: created.id, screen_name: created.screenName }, () => `created user ${created.screenName} (${created.id})`)
    })
  user
    .command('list')
    .description('list people')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const users = await withDomain(command, (deps) => deps.stores.users.list())
      print(!!options.json, users.map(userView), () =>
        users.length === 0 ? 'no users' : users.map((u) => `${u.id}  ${u.screenName}  ${u.name}`).join('\n'),
      )
    })
  user
    .command('sign-out-everywhere')
    .description("end every browser session of a person (console, settings and consent pages), on every instance from its next request")
    .argument('<user>', 'user id or screen name')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const person = await withDomain(command, async (deps) => {
        const found = await findUserByIdOrScreenName(deps, ref)
        await endEveryBrowserSession(deps, found.id)
        return found
      })
      print(!!options.json, { user_id: person.id, screen_name: person.screenName, sessions_ended: true }, () => `signed out every session of ${person.screenName} (${person.id})`)
    })
  return user
}
