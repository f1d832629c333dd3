import type { Command } from 'commander'
import { unlinkIdentity } from '../../domain/accounts/unlink-identity.ts'
import type { DomainDeps } from '../../domain/deps.ts'
import { findUserByIdOrScreenName } from '../../domain/registry/users.ts'
import { withDomain } from '../context.ts'
import { print } from '../output.ts'

/** A person's upstream identities (docs/accounts.md), as `user show` prints them: `provider subject`. */
export async function identitiesOf(deps: Pick<DomainDeps, 'stores'>, userId: string): Promise<string[]> {
  const links = await deps.stores.identityLinks.listForUser(userId)
  return links.map((link) => `${link.provider}:${link.subject}`)
}

/** `latchkey user unlink <user> <provider> <subject>`: the identity's next sign-in is a first one again. */
export function addUnlinkCommand(user: Command): void {
  user
    .command('unlink')
    .description("remove a person's upstream identity (OpenID Connect or login delegation, provider `login`): its next sign-in links afresh")
    .argument('<user>', 'user id or screen name')
    .argument('<provider>', 'the provider id (`login` for login delegation)')
    .argument('<subject>', "the provider's id of the person")
    .option('--json', 'print JSON')
    .action(async (ref: string, provider: string, subject: string, options: { json?: boolean }, command: Command) => {
      const person = await withDomain(command, async (deps) => {
        const found = await findUserByIdOrScreenName(deps, ref)
        await unlinkIdentity(deps, { userId: found.id, provider, subject })
        return found
      })
      print(!!options.json, { user_id: person.id, screen_name: person.screenName, provider, subject, unlinked: true }, () => `unlinked ${provider}:${subject} from ${person.screenName} (${person.id})`)
    })
}
