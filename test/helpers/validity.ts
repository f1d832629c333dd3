import assert from 'node:assert/strict'
import { errorCode, type HttpAnswer } from './oauth1-client.ts'

/** The calls a validity test makes, one per kind of credential: signed (OAuth 1.0a), app-only bearer, OAuth 2.0 user token. */
export interface ValidityCalls {
  signed(): Promise<HttpAnswer>
  bearer(): Promise<HttpAnswer>
  user(): Promise<HttpAnswer>
}

export type Outcomes = Record<keyof ValidityCalls, string>

export const ALL_ACCEPTED: Outcomes = { signed: '200', bearer: '200', user: '200' }

/** Each kind of call's status and Twitter code, each made twice (the second from the cache). */
export async function outcomes(calls: ValidityCalls): Promise<Outcomes> {
  const seen = {} as Outcomes
  for (const name of Object.keys(ALL_ACCEPTED) as Array<keyof ValidityCalls>) {
    const first = await calls[name]()
    const second = await calls[name]()
    const shown = (answer: HttpAnswer) => `${answer.status}${errorCode(answer) === undefined ? '' : ` ${errorCode(answer)}`}`
    assert.equal(shown(second), shown(first), `${name}: the same answer twice`)
    seen[name] = shown(first)
  }
  return seen
}

/** What the CLI does to end credentials, and what each kind of call gets at the next request. */
export const CLI_ENDINGS: ReadonlyArray<{ title: string; args: (ids: { appId: string; userId: string }) => string[]; after: Outcomes }> = [
  { title: 'suspending the app ends every credential of it', args: ({ appId }) => ['app', 'update', appId, '--suspended'], after: { signed: '401 416', bearer: '401 416', user: '401' } },
  { title: 'disabling the person ends what acts for them; the app-only token goes on', args: ({ userId }) => ['user', 'disable', userId], after: { signed: '401 89', bearer: '200', user: '401' } },
  { title: 'rotating the keys without grace ends the tokens signed with the old pair', args: ({ appId }) => ['app', 'rotate-keys', appId, '--yes'], after: { signed: '401 89', bearer: '401 89', user: '200' } },
  { title: 'deleting the app ends every credential of it', args: ({ appId }) => ['app', 'delete', appId], after: { signed: '401 89', bearer: '401 89', user: '401' } },
]
