import { Command, InvalidArgumentError } from 'commander'
import {
  MAX_APPS_PER_OWNER,
  createApp,
  deleteApp,
  findApp,
  rotateAppKeys,
  updateApp,
  type AppSettings,
} from '../../domain/registry/apps.ts'
import { issueOwnerToken } from '../../domain/registry/owner-token.ts'
import { applyOAuth2Setting, regenerateClientSecret, type OAuth2Setting } from '../../domain/oauth2-user/clients.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { DomainDeps } from '../../domain/deps.ts'
import type { AppRecord } from '../../storage/records.ts'
import { withDomain } from '../context.ts'
import { confirmAtTerminal } from '../confirm.ts'
import { lines, print } from '../output.ts'
import { appJson } from '../../domain/vocabulary.ts'

interface AppOptions {
  name?: string
  description?: string
  website?: string
  callback?: string[]
  addCallback?: string[]
  removeCallback?: string[]
  type?: string
  accessLevel?: string
  signIn?: boolean
  signatureMethods?: string
  suspended?: boolean
  resourceServer?: boolean
  oauth2?: OAuth2Setting
  json?: boolean
}

const OAUTH2_SETTINGS: readonly string[] = ['confidential', 'public', 'off']

function parseOAuth2(text: string): OAuth2Setting {
  if (!OAUTH2_SETTINGS.includes(text)) throw new InvalidArgumentError('give confidential, public or off')
  return text as OAuth2Setting
}

/** The app as every surface shows it, with its OAuth 2.0 client as --oauth2 (when given) leaves it. */
async function viewOf(deps: DomainDeps, app: AppRecord, setting: OAuth2Setting | undefined, options: { withSecret: boolean }) {
  return appJson(app, { ...options, ...(await applyOAuth2Setting(deps, app.id, () => setting)) })
}

const collect = (value: string, previous: string[] = []) => [...previous, value]

/**
 * The callback URLs after --callback (which replaces them all), then --add-callback and
 * --remove-callback; removing one that is not registered is refused.
 */
function callbacksAfter(registered: readonly string[], options: Pick<AppOptions, 'callback' | 'addCallback' | 'removeCallback'>): string[] {
  const kept = [...(options.callback ?? registered)]
  for (const url of options.removeCallback ?? []) {
    if (!kept.includes(url)) throw new ServiceError(E.invalidParameter, { message: `${url} is not a registered callback URL of this app (registered: ${kept.join(', ') || 'none'})` })
  }
  const removed = kept.filter((url) => !options.removeCallback?.includes(url))
  return [...removed, ...(options.addCallback ?? []).filter((url) => !removed.includes(url))]
}

/** Digits only; the domain checks the bounds. */
function parseGrace(text: string): number {
  if (!/^\d{1,7}$/.test(text)) throw new InvalidArgumentError('give a whole number of seconds, at most 604800 (7 days)')
  return Number(text)
}

/** The options shared by `app create` and `app update`. */
function withAppOptions(command: Command, isUpdate: boolean): Command {
  command
    .option('--description <text>', 'what the app does, shown on the consent page')
    .option('--website <url>', "the app's website")
    .option('--callback <url>', `a registered callback URL (repeat for several${isUpdate ? '; replaces them all' : ''}). The PIN flow needs none: any app may send oauth_callback=oob`, collect)
    .option('--type <type>', 'web or desktop (desktop apps use the PIN flow)')
    .option('--access-level <level>', 'read, read-write or read-write-directmessages')
    .option('--sign-in', 'enable "sign in with" (authenticate redirects a returning person at once)')
    .option('--signature-methods <list>', 'comma-separated: HMAC-SHA1, HMAC-SHA256, PLAINTEXT')
    .option('--resource-server', 'the app may call POST /oauth2/introspect')
    .option('--oauth2 <type>', 'OAuth 2.0 user context: confidential (gets a client secret, shown once), public (none) or off', parseOAuth2)
    .option('--json', 'print JSON')
  if (isUpdate) {
    command
      .option('--add-callback <url>', 'add a callback URL to those registered (repeat for several)', collect)
      .option('--remove-callback <url>', 'remove a registered callback URL (repeat for several)', collect)
      .option('--name <name>', 'new name')
      .option('--no-sign-in', 'disable "sign in with"')
      .option('--suspended', 'suspend the app: every credential of it stops working')
      .option('--no-suspended', 'lift a suspension')
      .option('--no-resource-server', 'withdraw introspection rights')
  }
  return command
}

function settingsFrom(options: AppOptions): AppSettings {
  return {
    name: options.name,
    description: options.description,
    website: options.website,
    callbackUrls: options.callback,
    type: options.type,
    accessLevel: options.accessLevel,
    isSignInEnabled: options.signIn,
    signatureMethods: options.signatureMethods?.split(',').map((m) => m.trim()).filter(Boolean),
    isSuspended: options.suspended,
    isResourceServer: options.resourceServer,
  }
}

export function appCommand(): Command {
  const app = new Command('app').description('registered applications and their credentials')

  withAppOptions(app.command('create').description('register an app'), false)
    .requiredOption('--name <name>', 'the name people see on the consent page')
    .requiredOption('--owner <screen_name>', 'the user who owns the app')
    .option('--beyond-app-limit', `register it though the owner already has ${MAX_APPS_PER_OWNER} apps, the most a developer may own`)
    .action(async (options: AppOptions & { owner: string; name: string; beyondAppLimit?: boolean }, command: Command) => {
      const view = await withDomain(command, async (deps) => {
        const made = await createApp(deps, { ...settingsFrom(options), name: options.name, owner: options.owner }, { beyondAppLimit: options.beyondAppLimit === true })
        return viewOf(deps, made, options.oauth2, { withSecret: true })
      })
      print(!!options.json, view, () => lines(view))
    })

  app
    .command('list')
    .description('list apps (without secrets)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const apps = await withDomain(command, async (deps) => {
        const all = await deps.stores.apps.list()
        const clients = new Map((await deps.stores.oauth2Clients.findByAppIds(all.map((a) => a.id))).map((c) => [c.appId, c]))
        return all.map((a) => appJson(a, { withSecret: false, client: clients.get(a.id) }))
      })
      print(!!options.json, apps, () =>
        apps.length === 0 ? 'no apps' : apps.map((a) => `${a.app_id}  ${a.consumer_key}  ${a.name}${a.suspended ? '  (suspended)' : ''}`).join('\n'),
      )
    })

  app
    .command('show <app>')
    .description('show an app, with its consumer secret (APP is the app id or consumer key)')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const view = await withDomain(command, async (deps) => viewOf(deps, await findApp(deps, ref), undefined, { withSecret: true }))
      print(!!options.json, view, () => lines(view))
    })

  withAppOptions(app.command('update <app>').description("change an app's settings"), true).action(
    async (ref: string, options: AppOptions, command: Command) => {
      const view = await withDomain(command, async (deps) => {
        const settings = settingsFrom(options)
        if (options.addCallback || options.removeCallback) settings.callbackUrls = callbacksAfter((await findApp(deps, ref)).callbackUrls, options)
        return viewOf(deps, await updateApp(deps, ref, settings), options.oauth2, { withSecret: false })
      })
      print(!!options.json, view, () => lines(view))
    },
  )

  app
    .command('delete <app>')
    .description('delete an app and every credential issued to it')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const deleted = await withDomain(command, (deps) => deleteApp(deps, ref))
      print(!!options.json, { app_id: deleted.id, deleted: true }, () => `deleted app ${deleted.id} (${deleted.name})`)
    })

  app
    .command('rotate-client-secret <app>')
    .description('a new OAuth 2.0 client secret for a confidential client: the old one and every grant of the app end at once')
    .option('--grace <seconds>', 'the old client secret keeps working this long (at most 604800, 7 days), and the grants stay', parseGrace)
    .option('--yes', 'do not ask before ending every grant at once')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean; grace?: number; yes?: boolean }, command: Command) => {
      const view = await withDomain(command, async (deps) => {
        const found = await findApp(deps, ref)
        if (options.grace === undefined) {
          await confirmAtTerminal(`A new client secret for ${found.name} (${found.id}) without --grace stops the old one and ends every OAuth 2.0 grant people gave the app, at once.`, options)
        }
        const change = await regenerateClientSecret(deps, { appId: found.id, ...(options.grace === undefined ? {} : { graceSeconds: options.grace }) })
        if (!change?.client || !change.newSecret) throw new ServiceError(E.invalidParameter, { message: `app ${found.id} has no confidential OAuth 2.0 client (app update --oauth2 confidential)` })
        const expiresAtMs = change.client.previousSecretExpiresAtMs
        return {
          app_id: found.id,
          client_id: change.client.clientId,
          client_secret: change.newSecret,
          previous_secret_expires_at: expiresAtMs === null ? null : new Date(expiresAtMs).toISOString(),
        }
      })
      print(!!options.json, view, () => lines(view))
    })

  app
    .command('rotate-keys <app>')
    .description('new consumer key and secret; without --grace the old pair and every token issued to the app stop working at once (asked first at a terminal)')
    .option('--grace <seconds>', 'the old key pair keeps working this long (at most 604800, 7 days), and the tokens stay valid', parseGrace)
    .option('--yes', 'do not ask before stopping every token at once')
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean; grace?: number; yes?: boolean }, command: Command) => {
      const view = await withDomain(command, async (deps) => {
        const app = await findApp(deps, ref)
        if (options.grace === undefined) {
          await confirmAtTerminal(`Rotating the keys of ${app.name} (${app.id}) without --grace stops its consumer key and secret and every request, access and bearer token issued to it, at once.`, options)
        }
        const rotated = await rotateAppKeys(deps, app.id, options.grace === undefined ? {} : { graceSeconds: options.grace })
        return {
          app_id: rotated.id,
          consumer_key: rotated.consumerKey,
          consumer_secret: rotated.consumerSecret,
          previous_key_expires_at: options.grace === undefined ? null : new Date(rotated.updatedAtMs + options.grace * 1000).toISOString(),
          tokens_revoked: options.grace === undefined,
        }
      })
      print(!!options.json, view, () =>
        [
          lines(view),
          view.tokens_revoked
            ? 'stopped working: the old consumer key and secret, and every request, access and bearer token of the app'
            : `the old consumer key and secret, and the app's tokens, keep working until ${view.previous_key_expires_at}`,
        ].join('\n'),
      )
    })

  app
    .command('owner-token <app>')
    .description("the owner's own access token for the app (needed to sign bearer-token invalidation)")
    .option('--json', 'print JSON')
    .action(async (ref: string, options: { json?: boolean }, command: Command) => {
      const { owner, token } = await withDomain(command, (deps) => issueOwnerToken(deps, ref))
      const view = {
        oauth_token: token.token,
        oauth_token_secret: token.secret,
        user_id: owner.id,
        screen_name: owner.screenName,
      }
      print(!!options.json, view, () => lines(view))
    })
  return app
}
