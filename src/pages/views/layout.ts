import { createHash } from 'node:crypto'
import { html, raw, type SafeHtml } from './html.ts'

/**
 * The one stylesheet, inline so a page is one response. The CSP allows exactly this text by its
 * hash rather than 'unsafe-inline', so an injected <style> or style="" would not apply.
 * Colours keep at least 7:1 contrast; focus is always visible.
 */
const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:34rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border:1px solid #c9ccd1;border-radius:8px}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
a{color:#0b4a8f}
.muted{color:#4a4f57}
.alert{padding:.75rem 1rem;border:2px solid #a4111d;border-radius:6px;color:#7d0d16;background:#fff5f5}
.revealed{padding:.75rem 1rem;border:2px solid #0b4a8f;border-radius:6px;background:#f0f6fc}
.copy{font-size:.9rem;padding:.2rem .7rem;margin-top:.25rem;background:#fff;color:#0b4a8f}
.brand{max-width:48rem;margin:1rem auto 0;padding:0 2rem;font-weight:700;letter-spacing:.02em;color:#0b4a8f}
label{display:block;font-weight:600;margin-top:1rem}
input[type=text],input[type=password],input[type=url],textarea,select{display:block;width:100%;margin-top:.25rem;padding:.5rem;font:inherit;border:1px solid #5f6670;border-radius:4px}
textarea{min-height:5rem}
input[type=checkbox]{margin-right:.5rem}
label.check{display:flex;align-items:center;font-weight:600}
nav ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0 0 1rem;padding:0;align-items:center}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;border-bottom:1px solid #c9ccd1;padding:.4rem .5rem;vertical-align:top}
code,.secret{overflow-wrap:anywhere}
.secret{display:block;white-space:pre-wrap;font:1rem/1.4 ui-monospace,monospace;padding:.5rem;background:#f4f5f7;border:1px solid #5f6670;border-radius:4px}
.primary{background:#0b4a8f;color:#fff}
.secondary{background:#fff;color:#0b4a8f}
.danger{background:#fff;color:#a4111d;border-color:#a4111d}
main.wide{max-width:48rem}
main.widest{max-width:72rem}
.parts{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 2.5rem}
@media (max-width:56rem){.parts{display:block}}
section.part{margin-top:2rem;border-top:1px solid #c9ccd1}
h3{font-size:1rem;margin:1.25rem 0 .25rem}
code.endpoint{overflow-wrap:normal}
.nowrap{white-space:nowrap}
ul.plain{list-style:none;padding:0}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.5rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:2px solid #0b4a8f;cursor:pointer}
#allow{background:#0b4a8f;color:#fff}
#cancel{background:#fff;color:#0b4a8f}
.link{border:0;padding:0;background:none;color:#0b4a8f;text-decoration:underline}
:focus-visible{outline:3px solid #c45500;outline-offset:2px}
.pin{font-size:2rem;letter-spacing:.2em;font-weight:700}
@media (max-width:36rem){main{margin:1rem .75rem;padding:1.25rem 1rem}}
`

export const STYLE_HASH = `'sha256-${createHash('sha256').update(CSS, 'utf8').digest('base64')}'`

/**
 * The one script: a "Copy" button (data-copy naming the element whose text it copies) puts that
 * text on the clipboard. Allowed by its hash like the stylesheet; without it the page still works.
 */
export const SCRIPT = `for(const b of document.querySelectorAll('button[data-copy]'))b.addEventListener('click',()=>navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent).then(()=>{b.textContent='Copied'}))`

export const SCRIPT_HASH = `'sha256-${createHash('sha256').update(SCRIPT, 'utf8').digest('base64')}'`

const BRAND = 'Latchkey'

/** A whole document: language, viewport, title (the page's, then the brand's, once) and one <main> holding the page's heading. */
/** `width`: wide for the console's pages, widest for one whose parts sit two by two; `script`: the page has Copy buttons (SCRIPT), which the consent pages never do. */
export function layout(title: string, body: SafeHtml, options: { width?: 'wide' | 'widest'; script?: boolean } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title === BRAND ? BRAND : `${title} · ${BRAND}`}</title>
<style>${raw(CSS)}</style>
</head>
<body>
<header class="brand">${BRAND}</header>
${options.width ? html`<main class="${options.width}">` : html`<main>`}
${body}
</main>
${options.script && html`<script>${raw(SCRIPT)}</script>`}
</body>
</html>
`.value
}
