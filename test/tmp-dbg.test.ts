import { test } from 'node:test'
import { startServe } from './helpers/serve-process.ts'
test('dbg', async () => {
  const s = await startServe(['--dev', '--port', '0', '--workers', '2', '--database', '/tmp/lk-cl/x.sqlite', '--redis', 'redis://127.0.0.1:6379', '--redis-key-prefix', 'lktest_cl:', '--log-level', 'warn'])
  if (process.env.FETCH) await Promise.all(Array.from({ length: 12 }, () => fetch(`${s.url}/readyz`)))
  const t = Date.now()
  console.log('code', await s.stop(8000), Date.now() - t)
  console.log(s.output().slice(-300))
})
