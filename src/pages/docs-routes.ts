// The user's documents at /docs/, as HTML: how to run, configure and call the service. The
// contributors' pages (testing, mutation testing, performance, decisions, the checklist) are the
// repository's, not the service's, and are not served.
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { sendPage } from './reply.ts'
import { docPage, docsIndexPage, type DocEntry } from './views/docs.ts'
import { markdownRenderer } from './views/markdown.ts'

/** The package's root: two folders up from this file in src/ and in dist/ alike. */
const ROOT = new URL('../../', import.meta.url)

/** The documents /docs/ serves, in this order, by their path in the package. The one list. */
export const USER_DOCUMENTS: readonly string[] = [
  'README.md',
  'docs/api.md',
  'docs/errors.md',
  'docs/rate-limits.md',
  'docs/config.md',
  'docs/console.md',
  'docs/deployment.md',
  'docs/storage.md',
  'docs/capacity.md',
  'docs/security.md',
  'docs/security-operations.md',
  'docs/audit.md',
  'docs/metrics.md',
  'docs/test-kit.md',
  'docs/test-kit-controls.md',
  'docs/clients.md',
  'docs/resource-servers.md',
  'docs/check-request.md',
  'docs/forward-auth.md',
  'docs/revocation-push.md',
  'docs/accounts.md',
]

/** A document's name in /docs/<name>: its file name. */
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1)

/** Where a relative link between documents leads here: a served document, the public OpenAPI document, or nowhere. */
function linkTarget(path: string): string | undefined {
  const name = nameOf(path)
  if (name === 'openapi-public.json') return '/openapi.json'
  return USER_DOCUMENTS.some((doc) => nameOf(doc) === name) ? `/docs/${name}` : undefined
}

let rendered: Map<string, DocEntry> | undefined

/** Each document, read and rendered at the first request for one (then kept); one missing from the package is left out. */
function documents(): Map<string, DocEntry> {
  if (rendered) return rendered
  const render = markdownRenderer(linkTarget)
  rendered = new Map<string, DocEntry>()
  for (const path of USER_DOCUMENTS) {
    let text: string
    try {
      text = readFileSync(new URL(path, ROOT), 'utf8')
    } catch {
      continue
    }
    const title = /^# (.+)$/m.exec(text)?.[1]?.trim() ?? nameOf(path)
    rendered.set(nameOf(path), { name: nameOf(path), title, body: render(text) })
  }
  return rendered
}

export function docsRoutes() {
  return async (app: FastifyInstance) => {
    app.get('/docs/', async (_request, reply) => sendPage(reply, 200, docsIndexPage([...documents().values()])))
    app.get<{ Params: { name: string } }>('/docs/:name', async (request, reply) => {
      const document = documents().get(request.params.name)
      if (!document) throw new ServiceError(E.pageNotFound)
      return sendPage(reply, 200, docPage(document))
    })
  }
}
