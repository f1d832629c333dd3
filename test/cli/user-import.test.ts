// Issue 50: `latchkey user import FILE` as an operator runs it, a real process on a real database.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { runCli, runCliAtTerminal } from '../helpers/cli.ts'
import { HASH_VECTORS } from '../helpers/imported-hash-vectors.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-import-'))
after(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
const newDatabase = () => ({ LATCHKEY_DATABASE_URL: join(dir, `db-${++files}.sqlite`) })
function fileOf(lines: string[]): string {
  const file = join(dir, `people-${++files}.jsonl`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

/** No hash of the vectors, nor a recognisable part of one, in what the command printed. */
function assertNoHash(text: string): void {
  for (const hash of Object.values(HASH_VECTORS)) assert.ok(!text.includes(hash.slice(-20)), `a hash in:\n${text}`)
}

const LINES = [
  JSON.stringify({ screen_name: 'ada', password_hash: HASH_VECTORS.bcrypt2y, name: 'Ada Lovelace', email: 'ada@example.org' }),
  '',
  `{"screen_name": "broken", "password_hash": "${HASH_VECTORS.argon2id}"`,
  JSON.stringify({ screen_name: 'grace', password_hash: HASH_VECTORS.pbkdf2Sha256 }),
  JSON.stringify({ screen_name: 'md5', password_hash: 'md5$salt$00112233445566778899aabbccddeeff' }),
]

describe('latchkey user import', () => {
  test('reports each line, imports the good ones, exits 1 when any was refused; the same file again changes nothing', async () => {
    const env = newDatabase()
    const file = fileOf(LINES)
    const first = await runCli(['user', 'import', file], env)
    assert.equal(first.code, 1)
    const out = first.stdout.trimEnd().split('\n')
    assert.match(out[0]!, /^line 1: created ada \(\d+\)$/)
    assert.equal(out[1], 'line 3: refused: not JSON')
    assert.match(out[2]!, /^line 4: created grace \(\d+\)$/)
    assert.match(out[3]!, /^line 5: refused md5: password_hash is not a known format/)
    assert.equal(out[4], `imported ${file}: 2 created, 0 unchanged, 2 refused`)
    assert.equal(first.stderr, 'latchkey: 2 of 4 lines refused (see the report)\n', 'no progress bar off a terminal')
    assertNoHash(first.stdout + first.stderr)

    const again = await runCli(['user', 'import', file, '--json'], env)
    assert.equal(again.code, 1)
    const report = JSON.parse(again.stdout) as { results: Array<{ index: number; status: string; screen_name?: string }>; created: number; unchanged: number; refused: number }
    assert.deepEqual(report.results.map((r) => [r.index, r.status, r.screen_name]), [[1, 'unchanged', 'ada'], [3, 'refused', undefined], [4, 'unchanged', 'grace'], [5, 'refused', 'md5']])
    assert.deepEqual([report.created, report.unchanged, report.refused], [0, 2, 2])
    assertNoHash(again.stdout + again.stderr)

    const shown = await runCli(['user', 'show', 'ada', '--json'], env)
    assert.deepEqual(JSON.parse(shown.stdout).email, 'ada@example.org')
    assertNoHash(shown.stdout)
  })

  test('a file of good lines exits 0; at a terminal a progress bar is drawn on the way', async () => {
    const env = newDatabase()
    const clean = await runCli(['user', 'import', fileOf([LINES[0]!, LINES[3]!])], env)
    assert.equal(clean.code, 0, clean.stderr)
    assert.equal(clean.stderr, '')
    const file = fileOf([JSON.stringify({ screen_name: 'hopper', password_hash: HASH_VECTORS.scrypt })])
    const atTerminal = await runCliAtTerminal(['user', 'import', file], env, [])
    assert.match(atTerminal.stdout, /import \[#+\] 100% \(1\/1\)/)
    assert.match(atTerminal.stdout, /1 created, 0 unchanged, 0 refused/)
  })

  test('a missing file is one clear line', async () => {
    const result = await runCli(['user', 'import', join(dir, 'nowhere.jsonl')], newDatabase())
    assert.equal(result.code, 1)
    assert.match(result.stderr, /^latchkey: cannot read .*nowhere\.jsonl: ENOENT\n$/)
  })

  test('user create --email: the address is shown, and another person cannot have it in another case', async () => {
    const env = newDatabase()
    const made = await runCli(['user', 'create', '--screen-name', 'linus', '--password', 'correct horse battery', '--email', 'Linus@Example.org', '--json'], env)
    assert.equal(made.code, 0, made.stderr)
    assert.equal(JSON.parse(made.stdout).email, 'Linus@Example.org')
    const taken = await runCli(['user', 'create', '--screen-name', 'other', '--password', 'correct horse battery', '--email', 'linus@example.ORG'], env)
    assert.equal(taken.code, 1)
    assert.equal(taken.stderr, 'latchkey: This e-mail address belongs to another person.\n')
    const bad = await runCli(['user', 'create', '--screen-name', 'other', '--password', 'correct horse battery', '--email', 'not an address'], env)
    assert.match(bad.stderr, /email must be an e-mail address/)
  })
})
