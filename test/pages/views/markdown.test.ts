// The user's documents are Markdown rendered into the pages: whatever a document holds, the HTML
// runs no script, carries no style attribute or image the CSP would refuse, and leads only where
// this service serves something.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { markdownRenderer } from '../../../src/pages/views/markdown.ts'

const render = markdownRenderer((path) => (path.endsWith('api.md') ? '/docs/api.md' : undefined))
const htmlOf = (text: string) => render(text).value

test('raw HTML in a document is shown as text, never as markup', () => {
  const out = htmlOf('<script>alert(1)</script>\n\nA <img src=x onerror="alert(2)"> and <b onclick="x()">bold</b>')
  assert.doesNotMatch(out, /<script|<img|<b /)
  assert.match(out, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
  assert.match(out, /&lt;img src=x onerror=&quot;alert\(2\)&quot;&gt;/)
})

test('a javascript:, data: or vbscript: link is no link; an https link stays one', () => {
  const out = htmlOf('[a](javascript:alert(1)) [b](data:text/html,x) [c](vbscript:x) [d](https://example.com/x)')
  assert.doesNotMatch(out, /href="(javascript|data|vbscript):/)
  assert.match(out, /<a href="https:\/\/example\.com\/x">d<\/a>/)
})

test('relative links lead to the served documents, anchors kept; a link to anything else keeps only its text', () => {
  const out = htmlOf('See [the API](docs/api.md#errors), [the code](src/app.ts) and [the map](../ARCHITECTURE.md).')
  assert.match(out, /<a href="\/docs\/api\.md#errors">the API<\/a>/)
  assert.match(out, /, the code and the map\./)
  assert.equal([...out.matchAll(/<a /g)].length, 1)
})

test('an image is named by its alt text (the CSP loads none); table cells carry no style; headings carry their anchor', () => {
  const out = htmlOf('## Capacity, and more\n\n![A <b>page</b>](docs/screenshots/x.png)\n\n| a | b |\n|:-:|--:|\n| 1 | 2 |\n')
  assert.match(out, /<h2 id="capacity-and-more">Capacity, and more<\/h2>/)
  assert.doesNotMatch(out, /<img|style=/)
  assert.match(out, /<em class="muted">\[A &lt;b&gt;page&lt;\/b&gt;\]<\/em>/)
  assert.match(out, /<th>a<\/th>/)
  assert.match(out, /<td>2<\/td>/)
})
