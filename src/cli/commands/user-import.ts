import { readFile } from 'node:fs/promises'
import { Command } from 'commander'
import { importCounts, importPeople, importResultJson, parseImportLine, type ImportResult } from '../../domain/accounts/import-people.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { withDomain } from '../context.ts'
import { print } from '../output.ts'
import { progressBar } from '../progress.ts'

/** A file's lines that hold something, with their line numbers (blank lines are skipped, not reported). */
async function linesOf(file: string): Promise<Array<{ line: number; entry: unknown }>> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ServiceError(E.invalidParameter, { message: `cannot read ${file}: ${error.code ?? 'unreadable'}` })
  })
  return text.split(/\r?\n/).flatMap((content, i) => (content.trim() === '' ? [] : [{ line: i + 1, entry: parseImportLine(content) }]))
}

function resultLine(result: ImportResult): string {
  const who = result.screenName ? ` ${result.screenName}` : ''
  if (result.status === 'refused') return `line ${result.index}: refused${who}: ${result.reason}`
  return `line ${result.index}: ${result.status}${who} (${result.id})`
}

export function userImportCommand(): Command {
  return new Command('import')
    .description('import people with the password hashes of the system they come from (JSON lines: screen_name, password_hash, and name, email, id if wanted); each line is created, unchanged or refused with the reason; exits 1 when any line was refused')
    .argument('<file>', 'a JSON-lines file (docs/accounts.md)')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { json?: boolean }, command: Command) => {
      const lines = await linesOf(file)
      const bar = progressBar('import')
      const results = await withDomain(command, (deps) =>
        importPeople(deps, lines.map(({ entry }) => entry), { firstIndex: 0, progress: (done) => bar.update(done, lines.length) }),
      ).finally(() => bar.end())
      // The use case numbers entries; the report names the file's lines.
      const numbered = results.map((result, i) => ({ ...result, index: lines[i]!.line }))
      const counts = importCounts(numbered)
      const summary = `imported ${file}: ${counts.created} created, ${counts.unchanged} unchanged, ${counts.refused} refused`
      print(!!options.json, { results: numbered.map(importResultJson), ...counts }, () => [...numbered.map(resultLine), summary].join('\n'))
      if (counts.refused > 0) throw new ServiceError(E.invalidParameter, { message: `${counts.refused} of ${numbered.length} lines refused (see the report)` })
    })
}
