import { Command, Option } from 'commander'
import { SETTINGS, type SettingName } from '../../config/settings.ts'
import { configFrom } from '../context.ts'
import { migrateDatabase } from '../../storage/index.ts'

const SERVE_SETTINGS = (Object.keys(SETTINGS) as SettingName[]).filter((name) => name !== 'database')

export function serveCommand(): Command {
  const serve = new Command('serve').description('run the HTTP service')
  const attributes = new Map<string, SettingName>()
  for (const name of SERVE_SETTINGS) {
    const def = SETTINGS[name]
    const option = new Option(def.flag, `${def.description} [env ${def.env}]`)
    attributes.set(option.attributeName(), name)
    serve.addOption(option)
  }
  serve.action(async (options: Record<string, unknown>, command: Command) => {
    const flags: Partial<Record<SettingName, unknown>> = {}
    for (const [attribute, value] of Object.entries(options)) {
      const name = attributes.get(attribute)
      if (name && value !== undefined) flags[name] = value
    }
    const config = configFrom(command, flags)
    await (await import('../run-serve.ts')).runServe(config)
  })
  return serve
}

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (serve also does this on start)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = configFrom(command)
      const applied = await migrateDatabase(config.database)
      process.stdout.write(options.json ? `${JSON.stringify({ applied })}\n` : applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n')
    })
}

