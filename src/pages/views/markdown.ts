import MarkdownIt from 'markdown-it'
import type Token from 'markdown-it/lib/token.mjs'
import { raw, type SafeHtml } from './html.ts'

/**
 * Where a relative link of a document leads on this service: another served document, the public
 * OpenAPI document, or nowhere (a source file, a contributors' page, the admin listener's document),
 * in which case the link is dropped and its text kept.
 */
export type LinkTarget = (path: string) => string | undefined

/** GitHub's heading anchors (lower case, spaces to hyphens, punctuation dropped), so `metrics.md#readiness` lands. */
function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function isRelative(href: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('/') && !href.startsWith('#')
}

/** Relative links through `target`; a link it does not know loses its markup, keeps its text. */
function rewriteLinks(children: Token[], target: LinkTarget): Token[] {
  const dropped: boolean[] = []
  return children.filter((token) => {
    if (token.type === 'link_open') {
      const href = token.attrGet('href') ?? ''
      const [path = '', hash] = href.split('#', 2)
      const to = isRelative(href) ? target(path) : href
      dropped.push(to === undefined)
      if (to !== undefined && to !== href) token.attrSet('href', hash === undefined ? to : `${to}#${hash}`)
      return to !== undefined
    }
    if (token.type === 'link_close') return !dropped.pop()
    return true
  })
}

/**
 * A Markdown renderer whose HTML fits the pages' CSP: no script, no style attribute, no image. Raw
 * HTML is off, so a document's `<script>` or `<img onerror>` is shown as text, and markdown-it's own
 * link check refuses javascript:, vbscript:, file: and data: links.
 */
export function markdownRenderer(target: LinkTarget): (text: string) => SafeHtml {
  const it = new MarkdownIt({ html: false, linkify: false, typographer: false })
  it.core.ruler.push('latchkey_pages', (state) => {
    state.tokens.forEach((token, i) => {
      if (token.type === 'heading_open') token.attrSet('id', slug(state.tokens[i + 1]?.content ?? ''))
      // Column alignment is a style="" the pages' CSP would refuse: the cells keep the stylesheet's.
      if (token.type === 'th_open' || token.type === 'td_open') token.attrs = null
      if (token.type === 'inline' && token.children) token.children = rewriteLinks(token.children, target)
    })
  })
  // The CSP loads no image: a picture is named by its alt text instead.
  it.renderer.rules.image = (tokens, idx) => `<em class="muted">[${it.utils.escapeHtml(tokens[idx]!.content)}]</em>`
  // markdown-it escapes every text it renders (html: false), so its output is markup of ours.
  return (text) => raw(it.render(text))
}
