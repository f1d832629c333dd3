import { existsSync } from 'node:fs'
import { Command } from 'commander'
import { ConfigError } from '../../config/load.ts'
import { KeyringError, newKeyring, serializeKeyring, withKeyMaintenance, writeKeyringFile } from '../../storage/index.ts'
import { recordAudit } from '../../domain/audit.ts'
import { configFrom, withDomain } from '../context.ts'
import { print } from '../output.ts'

/** `latchkey keys`: the master keys that seal every secret at rest. */
export function keysCommand(): Command {
  const keys = new Command('keys').description('the master keys that seal secrets at rest')

  keys
    .command('init')
    .description('make a new master key file (or print a keyring for LATCHKEY_MASTER_KEY with --print)')
    .option('--print', 'print the keyring instead of writing the file')
    .action((options: { print?: boolean }, command: Command) => {
      const config = configFrom(command)
      const keyring = newKeyring()
      if (options.print) return void process.stdout.write(serializeKeyring(keyring))
      if (existsSync(config.masterKeyFile)) throw new ConfigError(`${config.masterKeyFile} already exists; it may be sealing data: not overwritten`)
      writeKeyringFile(config.masterKeyFile, keyring)
      process.stdout.write(`wrote a new master key file: ${config.masterKeyFile} (active key ${keyring.activeKeyId})\n`)
    })

  const maintained = (name: string, description: string) =>
    keys.command(name).description(description).option('--json', 'print JSON')

  const fileOf = (command: Command) => {
    const config = configFrom(command)
    if (config.masterKey) throw new ConfigError('the keyring is given inline (LATCHKEY_MASTER_KEY): rotate it in a key file (--master-key-file) instead')
    return { database: config.database, file: config.masterKeyFile }
  }
  const run = async <T>(command: Command, body: Parameters<typeof withKeyMaintenance<T>>[2]) => {
    const { database, file } = fileOf(command)
    try {
      return await withKeyMaintenance(database, file, body)
    } catch (error) {
      if (error instanceof KeyringError) throw new ConfigError(error.message)
      throw error
    }
  }

  maintained('status', 'the active key, every key, and how many values each seals').action(async (options: { json?: boolean }, command: Command) => {
    const status = await run(command, (m) => m.status())
    print(!!options.json, status, () =>
      status.keys.map((k) => `${k.id}${k.id === status.activeKeyId ? ' (active)' : ''}: ${k.values} values`).join('\n'),
    )
  })
  maintained('rotate', 'add a new active key and re-seal everything under it while the service runs').action(
    async (options: { json?: boolean }, command: Command) => {
      // The audit store is opened first, so that recording adds no time between the key file's
      // change and the end of the command (retire counts from that change).
      const result = await withDomain(command, async (deps) => {
        const rotated = await run(command, (m) => m.rotate())
        await recordAudit(deps, { event: 'master_key.rotated', detail: { key_id: rotated.newKeyId, resealed: rotated.resealed } })
        return rotated
      })
      print(!!options.json, { active_key_id: result.newKeyId, resealed: result.resealed }, () =>
        `new active key ${result.newKeyId}; re-sealed ${result.resealed} values. Retire the old key with \`latchkey keys retire <id>\` once every instance runs.`,
      )
    },
  )
  maintained('reseal', 're-seal values not yet under the active key').action(async (options: { json?: boolean }, command: Command) => {
    const resealed = await run(command, (m) => m.reseal())
    print(!!options.json, { resealed }, () => `re-sealed ${resealed} values`)
  })
  maintained('retire', 'remove an old key once nothing is sealed under it')
    .argument('<key-id>')
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      await run(command, (m) => m.retire(id))
      await withDomain(command, (deps) => recordAudit(deps, { event: 'master_key.retired', detail: { key_id: id } }))
      print(!!options.json, { retired: id }, () => `retired key ${id}`)
    })
  return keys
}
