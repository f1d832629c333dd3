// Bare Fastify answering GET /healthz as Latchkey's route does, with no hook, logger or plugin: the
// framework's own share of the floor (bench/floor-components.ts). Prints "listening on URL".
import Fastify from 'fastify'

const app = Fastify()
app.get('/healthz', async () => ({ status: 'ok' }))
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`)
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
