// ESLint flat config: the recommended rules (typescript-eslint without type information, to stay
// fast) and which npm packages a layer may import. Which layer may import which is ARCHITECTURE.md's
// layer table, checked by test/docs/architecture-doc.test.ts: one source for each rule.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const FASTIFY = { regex: '^(fastify|fastify-plugin|@fastify/.*)$', message: 'Only src/http, src/web, src/pages, src/admin, src/app.ts and src/server.ts may import Fastify.' }

export default [
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'test-results/', 'reports/', '.stryker-tmp/'] },
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
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', fetch: 'readonly' } },
  },

  // Fastify stays at the HTTP edge.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/http/**', 'src/web/**', 'src/pages/**', 'src/admin/**', 'src/app.ts', 'src/server.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [FASTIFY] }] },
  },
  // The composition root builds the apps: it names their type, and nothing else of Fastify.
  {
    files: ['src/composition/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ ...FASTIFY, allowTypeImports: true }] }] },
  },
  // protocol/: pure functions; no package at all, only node: modules (and, by the layer table, errors/).
  {
    files: ['src/protocol/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [FASTIFY, { regex: '^(?!node:|\\.)', message: 'src/protocol may import only node: modules and src/errors.' }] }] },
  },
  // domain/: no database driver (storage only through the store interfaces).
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [FASTIFY, { regex: '^(better-sqlite3|kysely|pg|ioredis)(/.*)?$', message: 'src/domain must not use a database driver; go through the store interfaces in src/storage/types.ts.' }] },
      ],
    },
  },

  // clients/: what client code loads (latchkey/twitter-api-v2): no package at run time, its
  // client library's types only (the library is the user's, not a dependency of Latchkey's).
  {
    files: ['src/clients/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!node:|\\.)', allowTypeImports: true, message: 'src/clients may load no package at run time: import its client library with `import type`.' }] },
      ],
    },
  },

  {
    // Kysely documents `Kysely<any>` as the type of a migration's database: it must work on any schema version.
    files: ['src/storage/sql/migrations.ts', 'src/storage/sql/migrations-oauth2-user.ts', 'src/storage/sql/migrations-revocations.ts', 'src/storage/sql/migrations-accounts.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
]
