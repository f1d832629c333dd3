import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { escapeHtml, html, raw } from '../../../src/pages/views/html.ts'

describe('the html template', () => {
  test('escapes & < > " \' and ` in every interpolation', () => {
    assert.equal(html`<p title="${'"a\' `b`'}">${'<b>&</b>'}</p>`.value, '<p title="&quot;a&#39; &#96;b&#96;">&lt;b&gt;&amp;&lt;/b&gt;</p>')
    assert.equal(escapeHtml('"><img src=x onerror=alert(1)>'), '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;')
  })

  test('inserts nested html and raw() as they are, and arrays item by item', () => {
    const items = ['<a>', 'b'].map((x) => html`<li>${x}</li>`)
    assert.equal(html`<ul>${items}</ul>${raw('<hr>')}`.value, '<ul><li>&lt;a&gt;</li><li>b</li></ul><hr>')
  })

  test('renders null, undefined and false as nothing, and numbers as text', () => {
    assert.equal(html`${null}${undefined}${false}${0}${true}`.value, '0true')
  })
})
