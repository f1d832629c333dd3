import { Command } from 'commander'
import {
  DatabaseRefusedError,
  POSTGRES_BACKUP_ADVICE,
  backupSqlite,
  copyDatabase,
  restoreSqlite,
  type DatabaseFileReport,
} from '../../storage/index.ts'
import { isPostgresUrl, redactUrl } from '../../storage/urls.ts'
import { confirmAtTerminal } from '../confirm.ts'
import { masterKeys } from '../../composition/root.ts'
import { configFrom } from '../context.ts'
import { print } from '../output.ts'
import { progressBar } from '../progress.ts'

/** A report as the CLI prints it. */
function reportView(report: DatabaseFileReport) {
  const view = { file: report.file, bytes: report.bytes, schema_version: report.schemaVersion, rows: report.rows }
  return report.replacedKeptAs ? { ...view, replaced_database_kept_as: report.replacedKeptAs } : view
}

const rowsLine = (rows: Record<string, number>) =>
  Object.entries(rows)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ')

function embeddedDatabase(command: Command): string {
  const { database } = configFrom(command)
  if (isPostgresUrl(database)) throw new DatabaseRefusedError(POSTGRES_BACKUP_ADVICE)
  return database
}

export function backupCommand(): Command {
  return new Command('backup')
    .description('a consistent copy of the embedded database, made while the server runs and writes (SQLite\'s online backup)')
    .argument('<file>', 'the new backup file (never overwritten)')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { json?: boolean }, command: Command) => {
      const bar = progressBar('backup')
      const report = await backupSqlite(embeddedDatabase(command), file, masterKeys(configFrom(command)), (done, total) => bar.update(done, total)).finally(() => bar.end())
      print(!!options.json, reportView(report), () => `backed up to ${report.file} (${report.bytes} bytes, schema ${report.schemaVersion}): ${rowsLine(report.rows)}`)
    })
}

export function restoreCommand(): Command {
  return new Command('restore')
    .description('put a backup in place of the embedded database, once it passes the integrity check and its schema is known (refused while a server runs on it); the database it replaces is kept beside it until the next restore')
    .argument('<file>', 'a file made by latchkey backup')
    .option('--yes', 'do not ask before replacing the database (needed off a terminal)')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { json?: boolean; yes?: boolean }, command: Command) => {
      const database = embeddedDatabase(command)
      await confirmAtTerminal(`Restoring ${file} replaces everything in ${database}.`, options, 'refuse')
      const report = restoreSqlite(database, file, masterKeys(configFrom(command)))
      const kept = report.replacedKeptAs ? `\nthe database it replaced is kept as ${report.replacedKeptAs} until the next restore` : ''
      print(!!options.json, reportView(report), () => `restored ${file} into ${report.file} (schema ${report.schemaVersion}): ${rowsLine(report.rows)}${kept}`)
    })
}

export function copyCommand(): Command {
  return new Command('copy')
    .description('copy everything from the configured database into an empty one, SQLite to PostgreSQL or back, migrating it first (secrets stay sealed: keep the same master key)')
    .requiredOption('--to <url>', 'the target database: a postgres:// URL, or a SQLite path')
    .option('--json', 'print JSON')
    .action(async (options: { to: string; json?: boolean }, command: Command) => {
      const { database } = configFrom(command)
      let bar: ReturnType<typeof progressBar> | undefined
      let current = ''
      const rows = await copyDatabase(database, options.to, (table, done, total) => {
        if (table !== current) {
          bar?.end()
          bar = progressBar(table.padEnd(24))
          current = table
        }
        bar!.update(done, total)
      }).finally(() => bar?.end())
      const to = isPostgresUrl(options.to) ? redactUrl(options.to) : options.to
      print(!!options.json, { to, rows }, () => `copied into ${to}: ${rowsLine(rows)}`)
    })
}
