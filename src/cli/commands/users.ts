import { Command } from 'commander'
import { updateUser } from '../../domain/admin/people.ts'
import { endEveryBrowserSession } from '../../domain/browser-sessions.ts'
import { createUser, findUserByIdOrScreenName } from '../../domain/registry/users.ts'
import { unlockSignIn } from '../../domain/sign-in.ts'
import { userJson } from '../../domain/vocabulary.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { withDomain } from '../context.ts'
import { userImportCommand } from './user-import.ts'
import { lines, print } from '../output.ts'
import { passwordFrom, type PasswordOptions } from '../password-input.ts'
import { addUnlinkCommand, identitiesOf } from './user-identities.ts'

const USER_ARGUMENT = ['<user>', 'user id or screen name'] as const

/** The options that give a password, shared by create and update. */
function withPasswordOptions(command: Command): Command {
  return command
    .option('--password <password>', 'at least 8 characters (seen by shell history and ps: prefer --password-stdin or the prompt)')
    .option('--password-stdin', 'read the password from the first line of standard input')
}

export function userCommand(): Command {
  const user = new Command('user').description('people who can sign in and authorize apps')
  withPasswordOptions(
    user
      .command('create')
      .description('register a person (asks for the password at a terminal when neither password option is given)')
      .requiredOption('--screen-name <name>', '1 to 15 letters, digits or underscores')
      .option('--name <text>', 'display name (defaults to the screen name)')
      .option('--email <address>', 'e-mail address (unique without regard to case)'),
  )
    .option('--json', 'print JSON')
    .action(async (options: PasswordOptions & { screenName: string; name?: string; email?: string; json?: boolean }, command: Command) => {
      const password = (await passwordFrom(options, { required: true }))!
      const created = await withDomain(command, (deps) => createUser(deps, { screenName: options.screenName, password, name: options.name, ...(options.email === undefined ? {} : { email: options.email }) }))
      print(!!options.json, userJson(created), () => `created user ${created.screenName} (${created.id})`)
    })

  user
    .command('list')
    .description('list people')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const users = await withDomain(command, (deps) => deps.stores.users.list())
      print(!!options.json, users.map(userJson), () =>
        users.length === 0 ? 'no users' : users.map((u) => `${u.id}  ${u.screenName}  ${u.name}${u.isDisabled ? '  (disabled)' : ''}`).join('\n'),
      )
    })

  user
    .command('show')
    .description('show a person')
    .argument(...USER_ARGUMENT)
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const view = await withDomain(command, async (deps) => {
        const found = await findUserByIdOrScreenName(deps, ref)
        return { ...userJson(found), identities: await identitiesOf(deps, found.id) }
      })
      print(!!options.json, view, () => lines(view))
    })

  withPasswordOptions(user.command('update').description("change a person's display name or password (a new password ends every browser session of theirs)").argument(...USER_ARGUMENT))
    .option('--name <text>', 'new display name')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: PasswordOptions & { name?: string; json?: boolean }, command: Command) => {
      const password = await passwordFrom(options, { required: false })
      if (password === undefined && options.name === undefined) throw new ServiceError(E.invalidParameter, { message: 'nothing to change: give --name, --password or --password-stdin' })
      const view = userJson(
        await withDomain(command, async (deps) =>
          updateUser(deps, (await findUserByIdOrScreenName(deps, ref)).id, { ...(options.name === undefined ? {} : { name: options.name }), ...(password === undefined ? {} : { password }) }),
        ),
      )
      print(!!options.json, view, () => lines(view))
    })

  for (const [name, disabled] of [['disable', true], ['enable', false]] as const) {
    user
      .command(name)
      .description(
        disabled
          ? 'disable a person: they cannot sign in, every browser session and OAuth 2.0 grant of theirs ends, their OAuth 1.0a tokens are refused until enabled'
          : 'enable a disabled person again',
      )
      .argument(...USER_ARGUMENT)
      .option('--json', 'print JSON')
      .action(async (ref: string, options: { json?: boolean }, command: Command) => {
        const view = userJson(await withDomain(command, async (deps) => updateUser(deps, (await findUserByIdOrScreenName(deps, ref)).id, { disabled })))
        print(!!options.json, view, () => `${disabled ? 'disabled' : 'enabled'} ${view.screen_name} (${view.user_id})`)
      })
  }

  user
    .command('unlock')
    .description('clear the sign-in throttle of a person, or with --address of an address, at once on every instance')
    .argument('[user]', 'user id or screen name')
    .option('--address <address>', 'the client address to unlock instead (an IPv6 address unlocks its /64)')
    .option('--json', 'print JSON')
    .action(async (ref: string | undefined, options: { address?: string; json?: boolean }, command: Command) => {
      if ((ref === undefined) === (options.address === undefined)) throw new ServiceError(E.invalidParameter, { message: 'give a user or --address, one of the two' })
      const view = await withDomain(command, async (deps) => {
        if (options.address !== undefined) {
          await unlockSignIn(deps, { address: options.address })
          return { address: options.address, unlocked: true }
        }
        const person = await findUserByIdOrScreenName(deps, ref!)
        await unlockSignIn(deps, { user: person })
        return { user_id: person.id, screen_name: person.screenName, unlocked: true }
      })
      print(!!options.json, view, () => `unlocked ${'address' in view ? view.address : `${view.screen_name} (${view.user_id})`}: the next sign-in attempt counts afresh`)
    })

  user
    .command('sign-out-everywhere')
    .description('end every browser session of a person (console, settings and consent pages), on every instance from its next request')
    .argument(...USER_ARGUMENT)
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const person = await withDomain(command, async (deps) => {
        const found = await findUserByIdOrScreenName(deps, ref)
        await endEveryBrowserSession(deps, found.id)
        return found
      })
      print(!!options.json, { user_id: person.id, screen_name: person.screenName, sessions_ended: true }, () => `signed out every session of ${person.screenName} (${person.id})`)
    })
  user.addCommand(userImportCommand())
  addUnlinkCommand(user)
  return user
}
