import { randomAlphanumeric } from '../protocol/secrets.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { createApp } from '../domain/registry/apps.ts'
import { issueOwnerToken } from '../domain/registry/owner-token.ts'
import { createUser } from '../domain/registry/users.ts'

export interface DemoCredentials {
  screenName: string
  password: string
  consumerKey: string
  consumerSecret: string
  accessToken: string
  accessTokenSecret: string
}

/**
 * On the very first start of the development server (no users yet), a demo user and a demo app,
 * so a newcomer can try the flow at once. Returns undefined when the database already has users.
 */
export async function seedDemo(deps: DomainDeps, baseUrl: string): Promise<DemoCredentials | undefined> {
  if ((await deps.stores.users.list()).length > 0) return undefined
  const password = randomAlphanumeric(16)
  const user = await createUser(deps, { screenName: 'demo', password, name: 'Demo User' })
  const app = await createApp(deps, {
    name: 'Demo app',
    ownerScreenName: user.screenName,
    description: 'An app made by the development server so you can try the flow.',
    website: baseUrl,
    callbackUrls: ['http://127.0.0.1:3000/callback', 'http://localhost:3000/callback'],
    isSignInEnabled: true,
  })
  const { token } = await issueOwnerToken(deps, app.id)
  return {
    screenName: user.screenName,
    password,
    consumerKey: app.consumerKey,
    consumerSecret: app.consumerSecret,
    accessToken: token.token,
    accessTokenSecret: token.secret,
  }
}
