import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'

// docs/check-request.md shows the code of the example APIs the suite runs
// (test/e2e/resource-server-languages.test.ts): a team that copies it copies tested code.
const doc = readFileSync('docs/check-request.md', 'utf8')
const blocks = (language: string) => [...doc.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!.trimEnd())

for (const [language, example] of [
  ['python', 'examples/resource-servers/api.py'],
  ['go', 'examples/resource-servers/api.go'],
] as const) {
  test(`the ${language} code of docs/check-request.md is ${example}'s`, () => {
    const shown = blocks(language)
    assert.equal(shown.length, 1)
    assert.ok(readFileSync(example, 'utf8').includes(shown[0]!), `${example} no longer holds the code the doc shows`)
  })
}

test("the Node.js code of docs/check-request.md uses what the package's remote entry exports", async () => {
  const [shown] = blocks('js')
  const remote = await import('../../src/remote-verifier.ts')
  for (const name of /import \{ ([^}]+) \} from 'latchkey\/remote'/.exec(shown!)![1]!.split(',').map((n) => n.trim())) {
    assert.equal(typeof (remote as Record<string, unknown>)[name], 'function', name)
  }
  const exported = JSON.parse(readFileSync('package.json', 'utf8')).exports['./remote']
  assert.equal(exported.default, './dist/remote-verifier.js')
})
