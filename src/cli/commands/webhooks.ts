import { Command, Option } from 'commander'
import { addWebhook, findWebhook, removeWebhook, replayWebhook, verifyWebhook, webhookJson, webhookStatus } from '../../domain/revocations/webhooks.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { E } from '../../errors/catalogue.ts'
import { withDomain } from '../context.ts'
import { print } from '../output.ts'

type Json = { json?: boolean }

/** One line per endpoint: its id, URL, scope and queue. */
function statusLine(endpoint: ReturnType<typeof webhookJson>): string {
  const scope = endpoint.app_id === null ? 'every app' : `app ${endpoint.app_id}`
  const queue = endpoint.pending === undefined ? '' : `  pending ${endpoint.pending}  failed ${endpoint.failed}`
  const state = endpoint.verified ? '' : '  (not verified: run `latchkey webhook verify`)'
  const error = endpoint.last_error === null ? '' : `\n    last error ${endpoint.last_error_at}: ${endpoint.last_error}`
  const success = endpoint.last_success_at === null ? '' : `\n    last success ${endpoint.last_success_at}`
  return `${endpoint.id}  ${endpoint.url}  (${scope})${queue}${state}${success}${error}`
}

/** `latchkey webhook`: the revocation push's endpoints (docs/revocation-push.md). */
export function webhookCommand(): Command {
  const command = new Command('webhook').description('endpoints told when a credential ends (the revocation push)')
  command
    .command('add <url>')
    .description('register an endpoint; its signing secret is printed once. Nothing is sent before `latchkey webhook verify` passes')
    .option('--app <id>', "only this app's events (default: every app's)")
    .option('--json', 'print JSON')
    .action(async (url: string, options: Json & { app?: string }, sub: Command) => {
      const { endpoint, secret } = await withDomain(sub, (deps) => addWebhook(deps, { url, appId: options.app }))
      print(!!options.json, { ...webhookJson(endpoint), secret }, () =>
        [
          `id: ${endpoint.id}`,
          `url: ${endpoint.url}`,
          `secret: ${secret}`,
          '(shown once: give it to the receiver, then run `latchkey webhook verify ' + endpoint.id + '`; events wait for it until then)',
        ].join('\n'),
      )
    })
  command
    .command('verify <id>')
    .description("X's CRC challenge: GET the URL with crc_token; deliveries start once the receiver answers it")
    .option('--json', 'print JSON')
    .action(async (id: string, options: Json, sub: Command) => {
      const endpoint = await withDomain(sub, (deps) => verifyWebhook(deps, id))
      print(!!options.json, webhookJson(endpoint), () => `verified webhook ${endpoint.id}: ${endpoint.url} answered the CRC challenge`)
    })
  for (const name of ['list', 'status']) {
    command
      .command(`${name}${name === 'status' ? ' [id]' : ''}`)
      .description(name === 'list' ? 'every endpoint' : 'pending and failed events, last error and last success, of every endpoint or one')
      .option('--json', 'print JSON')
      .action(async (...args: unknown[]) => {
        const id = name === 'status' ? (args[0] as string | undefined) : undefined
        const options = args[name === 'status' ? 1 : 0] as Json
        const sub = args[name === 'status' ? 2 : 1] as Command
        const endpoints = await withDomain(sub, async (deps) => {
          const all = await webhookStatus(deps)
          if (id === undefined) return all
          const { id: found } = await findWebhook(deps, id)
          return all.filter((endpoint) => endpoint.id === found)
        })
        const shown = endpoints.map(webhookJson)
        print(!!options.json, id === undefined ? shown : shown[0], () => (shown.length === 0 ? 'no webhooks' : shown.map(statusLine).join('\n')))
      })
  }
  command
    .command('replay <id>')
    .description('send events again: the failed ones, or every event since a time (within --revocation-retention)')
    .addOption(new Option('--failed', 'the events marked failed').conflicts('since'))
    .addOption(new Option('--since <time>', 'every event at or after this ISO 8601 time'))
    .option('--json', 'print JSON')
    .action(async (id: string, options: Json & { failed?: boolean; since?: string }, sub: Command) => {
      const sinceMs = options.since === undefined ? undefined : Date.parse(options.since)
      if ((options.failed === undefined) === (options.since === undefined) || (sinceMs !== undefined && !Number.isFinite(sinceMs))) {
        throw new ServiceError(E.invalidParameter, { message: 'give --failed, or --since with an ISO 8601 time', field: 'since' })
      }
      const queued = await withDomain(sub, (deps) => replayWebhook(deps, id, sinceMs === undefined ? { failed: true } : { sinceMs }))
      print(!!options.json, { id, queued }, () => `queued ${queued} event${queued === 1 ? '' : 's'} again for webhook ${id}`)
    })
  command
    .command('remove <id>')
    .description('remove an endpoint and its queue')
    .option('--json', 'print JSON')
    .action(async (id: string, options: Json, sub: Command) => {
      await withDomain(sub, (deps) => removeWebhook(deps, id))
      print(!!options.json, { id, removed: true }, () => `removed webhook ${id}`)
    })
  return command
}
