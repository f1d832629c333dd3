import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomAlphanumeric } from '../protocol/secrets.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { createAdminToken, listAdminTokens, revokeAdminToken } from '../domain/admin/admin-tokens.ts'
import { updateUser } from '../domain/admin/people.ts'
import { createApp, updateApp } from '../domain/registry/apps.ts'
import { issueOwnerToken } from '../domain/registry/owner-token.ts'
import { createUser, findByScreenName } from '../domain/registry/users.ts'
import { isPostgresUrl, sqlitePathOf } from '../storage/index.ts'

export interface DemoCredentials {
  screenName: string
  password: string
  appId: string
  consumerKey: string
  consumerSecret: string
  accessToken: string
  accessTokenSecret: string
  /** A token of the admin API, named DEVELOPMENT_ADMIN_TOKEN. */
  adminToken: string
}

/** The name of the admin token the development server makes: production revokes every live one of it. */
export const DEVELOPMENT_ADMIN_TOKEN = 'development'

/**
 * On the very first start of the development server (no users yet), a demo user and a demo app,
 * and a development admin token, so a newcomer can try the flow and the admin API at once. Returns undefined when the database already has users.
 */
export async function seedDemo(deps: DomainDeps, baseUrl: string): Promise<DemoCredentials | undefined> {
  if ((await deps.stores.users.list()).length > 0) return undefined
  const password = randomAlphanumeric(16)
  const user = await createUser(deps, { screenName: 'demo', password, name: 'Demo User' })
  const app = await createApp(deps, {
    name: 'Demo app',
    owner: user.screenName,
    description: 'An app made by the development server so you can try the flow.',
    website: baseUrl,
    callbackUrls: ['http://127.0.0.1:3000/callback', 'http://localhost:3000/callback'],
    // Every flow and scope can be tried with it.
    accessLevel: 'read-write',
    isSignInEnabled: true,
  })
  const { token } = await issueOwnerToken(deps, app.id)
  const admin = await createAdminToken(deps, DEVELOPMENT_ADMIN_TOKEN)
  return {
    screenName: user.screenName,
    password,
    appId: app.id,
    consumerKey: app.consumerKey,
    consumerSecret: app.consumerSecret,
    accessToken: token.token,
    accessTokenSecret: token.secret,
    adminToken: admin.token,
  }
}

/**
 * The demo as the database has it now: the app's current keys (new ones after a rotation) and a
 * live owner token, the one it had or a new one once that one was invalidated, so that what
 * `latchkey demo` prints works. The sign-in and the admin token are the first start's.
 */
export async function currentDemo(deps: Pick<DomainDeps, 'stores' | 'clock'>, demo: DemoCredentials): Promise<DemoCredentials> {
  const { app, token } = await issueOwnerToken(deps, demo.appId)
  return { ...demo, consumerKey: app.consumerKey, consumerSecret: app.consumerSecret, accessToken: token.token, accessTokenSecret: token.secret }
}

/**
 * Where the development server keeps the demo credentials it made, beside the embedded database
 * (readable by its owner only): the front door and `latchkey demo` show them again. Undefined on
 * PostgreSQL, which is never a development database.
 */
export function demoFilePath(database: string): string | undefined {
  return isPostgresUrl(database) ? undefined : `${sqlitePathOf(database)}.demo.json`
}

export function writeDemoFile(path: string, demo: DemoCredentials): void {
  writeFileSync(path, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 })
  chmodSync(path, 0o600)
}

/** The demo credentials of a development database, or undefined when it has none. */
export function readDemoFile(path: string | undefined): DemoCredentials | undefined {
  if (!path) return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials
  } catch {
    return undefined
  }
}

/** A loopback origin such as an earlier development start gave the demo app as its website. */
const LOOPBACK_ORIGIN = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/

/**
 * On a later development start (`--port 8092` after 8080), the demo app's website follows the
 * server's address, unless someone gave it one that is not a development server's.
 */
export async function keepDemoWebsite(deps: DomainDeps, demo: DemoCredentials, url: string): Promise<void> {
  const app = await deps.stores.apps.findById(demo.appId)
  if (app && app.website !== url && LOOPBACK_ORIGIN.test(app.website ?? '')) await updateApp(deps, app.id, { website: url })
}

/**
 * A development database served in production: what the development server made for a newcomer,
 * whose credentials it printed and kept in a file, stops before the first request. Every live admin
 * token named DEVELOPMENT_ADMIN_TOKEN is revoked; with the demo file beside the database, the demo
 * app is suspended, the demo person disabled (both by an operator, audited) and the file deleted.
 * Returns what it did, one sentence each, for the start's log.
 */
export async function retireDevelopmentDemo(deps: DomainDeps, database: string): Promise<string[]> {
  const done: string[] = []
  for (const token of await listAdminTokens(deps)) {
    if (token.name !== DEVELOPMENT_ADMIN_TOKEN || token.revokedAtMs !== null) continue
    await revokeAdminToken(deps, token.id)
    done.push(`revoked the development server's admin token ${token.id} (named ${DEVELOPMENT_ADMIN_TOKEN})`)
  }
  const file = demoFilePath(database)
  const demo = readDemoFile(file)
  if (!file || !demo) return done
  const app = await deps.stores.apps.findById(demo.appId)
  if (app && !app.isSuspended) {
    await updateApp(deps, app.id, { isSuspended: true }, { by: 'operator' })
    done.push(`suspended the demo app ${app.id}`)
  }
  const person = await findByScreenName(deps, demo.screenName)
  if (person && !person.isDisabled) {
    await updateUser(deps, person.id, { disabled: true })
    done.push(`disabled the demo person ${person.screenName} (${person.id})`)
  }
  rmSync(file, { force: true })
  done.push(`deleted ${file}, which held the demo's credentials`)
  return done
}
