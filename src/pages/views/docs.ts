import { html, type SafeHtml } from './html.ts'
import { layout } from './layout.ts'

/** A user's document, rendered. */
export interface DocEntry {
  /** Its name in /docs/<name>, e.g. `api.md`. */
  name: string
  /** Its first heading. */
  title: string
  body: SafeHtml
}

/** GET /docs/: the user's documents. */
export function docsIndexPage(docs: readonly DocEntry[]): string {
  return layout(
    'Documentation',
    html`<h1>Documentation</h1>
<ul>${docs.map((doc) => html`<li><a href="/docs/${doc.name}">${doc.title}</a> <span class="muted">${doc.name}</span></li>`)}</ul>
<p><a href="/">Back to the front door</a></p>`,
  )
}

/** GET /docs/<name>: one document. */
export function docPage(doc: DocEntry): string {
  return layout(
    doc.title,
    html`<nav><ul><li><a href="/docs/">Documentation</a></li><li><a href="/">The front door</a></li></ul></nav>
${doc.body}`,
    { width: 'wide' },
  )
}
