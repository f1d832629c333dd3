// Writes docs/config.md from the settings table (src/config/settings.ts): `npm run docs:config`.
import { writeFileSync } from 'node:fs'
import { SETTINGS } from '../src/config/settings.ts'

export function renderConfigDoc(): string {
  const rows = Object.entries(SETTINGS).map(([name, def]) => {
    const fallback = def.default === undefined ? '—' : `\`${JSON.stringify(def.default)}\``
    const dev = 'devDefault' in def ? ` (dev: \`${JSON.stringify(def.devDefault)}\`)` : ''
    return `| \`${name}\` | \`${def.flag.replaceAll('|', '\\|')}\` | \`${def.env}\` | ${fallback}${dev} | ${def.description.replaceAll('|', '\\|')} |`
  })
  return [
    '# Configuration',
    '',
    'Every setting, from the one table in `src/config/settings.ts` (this page is generated from it by',
    '`npm run docs:config`; a test fails when it is out of date). Precedence: defaults < config file',
    '(`--config file.json` or `LATCHKEY_CONFIG`, a JSON object keyed by the names below) < environment',
    '< command-line flags. A bad value stops start-up with one line naming the setting.',
    '',
    '| setting | flag | environment | default | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n')
}

if (process.argv[1]?.endsWith('config-doc.ts')) {
  writeFileSync(new URL('../docs/config.md', import.meta.url), renderConfigDoc())
}
