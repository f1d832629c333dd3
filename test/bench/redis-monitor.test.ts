import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseMonitorLine } from '../../bench/redis-monitor.ts'

test('a MONITOR line: its source, and its arguments with Redis\'s escapes undone', () => {
  assert.deepEqual(parseMonitorLine('+1796649099.149718 [0 127.0.0.1:37610] "set" "p:generation" "a\\"b\\\\c\\x41\\n"'), {
    source: '0 127.0.0.1:37610',
    args: ['set', 'p:generation', 'a"b\\cA\n'],
  })
  assert.deepEqual(parseMonitorLine('+1796649099.1 [0 lua] "incr" "p:count"'), { source: '0 lua', args: ['incr', 'p:count'] })
})
