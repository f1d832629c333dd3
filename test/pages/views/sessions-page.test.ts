import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sessionsPage } from '../../../src/pages/views/account.ts'
import type { BrowserSessionRecord, UserRecord } from '../../../src/storage/records.ts'
import { textOf } from '../../helpers/browser.ts'

const user: UserRecord = { id: '7', screenName: 'ada', name: 'Ada', passwordHash: 'x', createdAtMs: 0 }
const session = (id: string, userAgent: string): BrowserSessionRecord => ({
  id,
  userId: '7',
  generation: 0,
  createdAtMs: 0,
  lastSeenAtMs: 0,
  passwordAtMs: 0,
  userAgent,
  address: '127.0.0.1',
  endedAtMs: null,
})
const AGENTS: Array<[string, string]> = [
  ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Linux'],
  ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iOS'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on Windows'],
  ['', 'Unknown browser'],
  ['<script>alert(1)</script>', 'Unknown browser'],
]

test('the sessions page names each browser as "Firefox on Linux", the whole user agent on hover, escaped', () => {
  const page = sessionsPage({ csrfToken: 'c', user, sessions: AGENTS.map(([ua], i) => session(`s${i}`, ua)), currentId: 's0' })
  const rows = [...page.matchAll(/<tr data-session-id="(s\d)">\n<td>([\s\S]*?)<\/td>/g)]
  assert.equal(rows.length, AGENTS.length)
  for (const [i, [ua, shown]] of AGENTS.entries()) {
    const cell = rows[i]![2]!
    assert.equal(textOf(`<td id="x">${cell}</td>`, 'x')!.replace(' (this browser)', ''), shown, ua)
    if (ua !== '') assert.ok(cell.includes(`title="${ua.replaceAll('<', '&lt;').replaceAll('>', '&gt;')}"`), ua)
  }
  assert.doesNotMatch(page, /<script>alert/)
})
