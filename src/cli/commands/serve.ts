import { Command, Option } from 'commander'
import { SETTINGS, type SettingName } from '../../config/settings.ts'
import { seedDemo } from '../../dev-demo.ts'
import { startServer } from '../../server.ts'
import { configFrom } from '../context.ts'
import { migrateToLatest } from '../../storage/sql/migrations.ts'
import { openDatabase } from '../../storage/open-stores.ts'

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
    const server = await startServer(config)
    if (config.dev) {
      const demo = await seedDemo(server.domain, server.url)
      if (demo) printDemo(server.url, demo)
    }
    process.stdout.write(`Latchkey is listening on ${server.url}${config.dev ? ' (development mode)' : ''}\n`)
    let closing = false
    const stop = () => {
      if (closing) return
      closing = true
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
  })
  return serve
}

function printDemo(url: string, demo: Awaited<ReturnType<typeof seedDemo>> & object): void {
  process.stdout.write(
    [
      '',
      'First start: made a demo user and a demo app (shown once; `npm run latchkey -- app show <key>` shows the app again).',
      `  sign in as          ${demo.screenName} / ${demo.password}`,
      `  consumer key        ${demo.consumerKey}`,
      `  consumer secret     ${demo.consumerSecret}`,
      `  owner access token  ${demo.accessToken}`,
      `  owner token secret  ${demo.accessTokenSecret}`,
      `  callbacks           http://127.0.0.1:3000/callback, http://localhost:3000/callback, or oob (PIN)`,
      `  try it              POST ${url}/oauth/request_token signed with the consumer key and secret`,
      '',
    ].join('\n'),
  )
}

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (serve also does this on start)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = configFrom(command)
      const db = openDatabase(config.database)
      try {
        const applied = await migrateToLatest(db)
        process.stdout.write(
          options.json ? `${JSON.stringify({ applied })}\n` : applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n',
        )
      } finally {
        await db.destroy()
      }
    })
}

