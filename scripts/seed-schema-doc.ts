// Writes docs/seed.schema.json, the published JSON Schema of a seed file, from its zod schema: `npm run docs:seed-schema`.
import { writeFileSync } from 'node:fs'
import { seedJsonSchema } from '../src/domain/test-kit/seed-schema.ts'

export const SEED_SCHEMA_FILE = new URL('../docs/seed.schema.json', import.meta.url)

export const renderSeedSchema = (): string => `${JSON.stringify(seedJsonSchema(), null, 2)}\n`

if (process.argv[1]?.endsWith('seed-schema-doc.ts')) writeFileSync(SEED_SCHEMA_FILE, renderSeedSchema())
