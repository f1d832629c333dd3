// Writes docs/openapi-admin.json and docs/openapi-public.json from the code: `npm run docs:openapi`.
import { writeFileSync } from 'node:fs'
import { renderAdminOpenApi } from '../src/admin/app.ts'
import { publicOpenApi } from '../src/http/openapi-public.ts'

export const OPENAPI_FILES = {
  admin: new URL('../docs/openapi-admin.json', import.meta.url),
  public: new URL('../docs/openapi-public.json', import.meta.url),
}

export const renderDocument = (document: object): string => `${JSON.stringify(document, null, 2)}\n`

if (process.argv[1]?.endsWith('openapi-docs.ts')) {
  writeFileSync(OPENAPI_FILES.admin, renderDocument(await renderAdminOpenApi()))
  writeFileSync(OPENAPI_FILES.public, renderDocument(publicOpenApi()))
}
