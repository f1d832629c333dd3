import { Command } from 'commander'
import { createAdminToken, listAdminTokens, revokeAdminToken } from '../../domain/admin/admin-tokens.ts'
import type { AdminTokenRecord } from '../../storage/index.ts'
import { withDomain } from '../context.ts'
import { print } from '../output.ts'

const tokenView = (t: AdminTokenRecord) => ({
  id: t.id,
  name: t.name,
  created_at: new Date(t.createdAtMs).toISOString(),
  revoked_at: t.revokedAtMs === null ? null : new Date(t.revokedAtMs).toISOString(),
})

/** `latchkey admin-token`: the bearer tokens of the admin API. */
export function adminTokenCommand(): Command {
  const command = new Command('admin-token').description('tokens that call the admin API (Authorization: Bearer)')
  command
    .command('create')
    .description('make an admin token; it is printed once and kept only as a keyed hash')
    .requiredOption('--name <name>', 'what the token is for (1 to 64 characters)')
    .option('--json', 'print JSON')
    .action(async (options: { name: string; json?: boolean }, sub: Command) => {
      const { record, token } = await withDomain(sub, (deps) => createAdminToken(deps, options.name))
      print(!!options.json, { id: record.id, name: record.name, token }, () =>
        [`id: ${record.id}`, `name: ${record.name}`, `token: ${token}`, '(shown once: keep it now)'].join('\n'),
      )
    })
  command
    .command('list')
    .description('list admin tokens (never the tokens themselves)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, sub: Command) => {
      const tokens = await withDomain(sub, (deps) => listAdminTokens(deps))
      print(!!options.json, tokens.map(tokenView), () =>
        tokens.length === 0
          ? 'no admin tokens'
          : tokens.map((t) => `${t.id}  ${t.name}${t.revokedAtMs === null ? '' : '  (revoked)'}`).join('\n'),
      )
    })
  command
    .command('revoke <id>')
    .description('revoke an admin token: every instance refuses it from the next request on')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }, sub: Command) => {
      await withDomain(sub, (deps) => revokeAdminToken(deps, id))
      print(!!options.json, { id, revoked: true }, () => `revoked admin token ${id}`)
    })
  return command
}
