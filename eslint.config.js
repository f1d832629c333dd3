// ESLint flat config: the recommended rules (typescript-eslint without type information, to stay
// fast) and the dependency direction of docs/architecture §2.2, enforced per folder with the core
// `no-restricted-imports` rule.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/** Deepest folder level below src/<folder>/ we generate rules for (src/storage/sql/x.ts is level 1). */
const MAX_DEPTH = 3

const FASTIFY = { regex: '^(fastify|fastify-plugin|@fastify/.*)$', message: 'Only src/http, src/pages, src/admin, src/app.ts and src/server.ts may import Fastify.' }

/**
 * A pattern that matches a relative import, written from a file `depth` folders below src/<folder>/,
 * which reaches src/<target>: exactly depth+1 `../` then the target name.
 */
function reaching(depth, targets, message) {
  const up = '\\.\\./'.repeat(depth + 1)
  return { regex: `^${up}(${targets.join('|')})(/|\\.ts$|$)`, message }
}

/** One config block per folder depth: the patterns depend on how far `../` has to climb. */
function restrict(folder, patternsAt) {
  return Array.from({ length: MAX_DEPTH + 1 }, (_, depth) => ({
    files: [`src/${folder}/${'*/'.repeat(depth)}*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: patternsAt(depth) }] },
  }))
}

function domainPatterns(depth) {
  return [
    FASTIFY,
    {
      regex: '^(better-sqlite3|kysely|pg|ioredis)(/.*)?$',
      message: 'src/domain must not use a database driver; go through the store interfaces in src/storage/types.ts.',
    },
    reaching(depth, ['storage/(sql|sqlite|memory|postgres|redis|sealing|open-stores|key-maintenance|index)'], 'src/domain must not import a storage adapter; use src/storage/types.ts.'),
    reaching(depth, ['http', 'pages', 'cli'], 'src/domain must not import the HTTP, pages or CLI edges.'),
  ]
}

/** src/domain/<own>/ may not import src/domain/<other>/ (its files sit one level below src/domain/). */
function protocolFolder(own, other) {
  const message = `src/domain/${own} must not import src/domain/${other}: move what both need to src/domain/.`
  return [1, 2].map((depth) => ({
    files: [`src/domain/${own}/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...domainPatterns(depth), { regex: `^(\\.\\./){${depth}}${other}(/|$)`, message }, { regex: `^\\.\\./(\\.\\./)*domain/${other}(/|$)`, message }] },
      ],
    },
  }))
}

export default [
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // A leading underscore marks a binding as deliberately unused (`{ secret: _secret, ...rest }`).
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },

  // Fastify stays at the HTTP edge.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/http/**', 'src/pages/**', 'src/admin/**', 'src/app.ts', 'src/server.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [FASTIFY] }] },
  },

  // protocol/: pure functions; only node: modules, its own files and errors/.
  ...restrict('protocol', (depth) => [
    { regex: '^(?!node:|\\.)', message: 'src/protocol may import only node: modules and src/errors.' },
    { regex: `^${'\\.\\./'.repeat(depth + 1)}(?!errors/)`, message: 'src/protocol may import only node: modules and src/errors.' },
    { regex: `^${'\\.\\./'.repeat(depth + 2)}`, message: 'src/protocol may import only node: modules and src/errors.' },
  ]),

  // domain/: use cases; no framework, no database driver, no adapter, no edge.
  ...restrict('domain', domainPatterns),
  // OAuth 1.0a and OAuth 2 stand on their own: what both need lives one level up (request.ts,
  // identify-caller.ts). These blocks come after the domain's and repeat its patterns (a later
  // block's options replace an earlier one's).
  ...protocolFolder('oauth1', 'oauth2'),
  ...protocolFolder('oauth2', 'oauth1'),

  // cli/: storage only through its entry point (src/storage/index.ts), never sql/, sealing/ or an adapter.
  ...[0, 1].map((depth) => ({
    files: [`src/cli/${'*/'.repeat(depth)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            FASTIFY,
            {
              regex: `^${'\\.\\./'.repeat(depth + 1)}storage/(?!index\\.ts$)`,
              message: 'src/cli reaches storage only through src/storage/index.ts.',
            },
          ],
        },
      ],
    },
  })),

  // storage/: adapters know nothing of the domain or the edges.
  ...restrict('storage', (depth) => [FASTIFY, reaching(depth, ['http', 'pages', 'cli', 'domain'], 'src/storage must not import the domain or the HTTP, pages or CLI edges.')]),

  {
    // Kysely documents `Kysely<any>` as the type of a migration's database: it must work on any schema version.
    files: ['src/storage/sql/migrations.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
]
