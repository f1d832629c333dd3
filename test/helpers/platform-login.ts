import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A platform's own login page, as a team adopting login delegation would write it (docs/accounts.md):
 * it reads the challenge from the admin API, checks a person against its own table its own way, and
 * accepts or rejects through the admin API before sending the browser to `redirect_to`.
 */
export interface PlatformLogin {
  /** http://127.0.0.1:PORT/login: Latchkey's --login-url. */
  loginUrl: string
  /** Where to call the admin API, with which token: set once the service is up. */
  admin: { url: string; token: string }
  /** Every challenge its page was opened with, in order. */
  challenges: string[]
  close(): Promise<void>
}

/** The platform's people: its own ids (the subjects) and passwords, none of them Latchkey's. */
export const PLATFORM_PEOPLE: Record<string, { subject: string; password: string; name: string }> = {
  carol: { subject: 'platform-user-42', password: 'carol-at-the-platform', name: 'Carol Platform' },
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(body: string): string {
  return `<!doctype html><html lang="en"><title>Platform login</title><main>${body}</main></html>`
}

export async function startPlatformLogin(): Promise<PlatformLogin> {
  const platform: PlatformLogin = { loginUrl: '', admin: { url: '', token: '' }, challenges: [], close: async () => {} }
  const callAdmin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.admin.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${platform.admin.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, json: (await response.json()) as Record<string, unknown> }
  }

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://platform.invalid')
      if (request.method === 'GET' && url.pathname === '/login') {
        const challenge = url.searchParams.get('login_challenge') ?? ''
        platform.challenges.push(challenge)
        const read = await callAdmin('GET', `/admin/v1/login-challenges/${encodeURIComponent(challenge)}`)
        if (read.status !== 200) return response.writeHead(400, { 'content-type': 'text/html' }).end(page('<p id="platform_error">Unknown sign-in.</p>'))
        const app = read.json.app as { name: string } | undefined
        const hint = typeof read.json.login_hint === 'string' ? read.json.login_hint : ''
        return response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          page(`<h1>Platform sign-in${app ? ` for ${escape(app.name)}` : ''}</h1>
<form method="post" action="/login"><input type="hidden" name="login_challenge" value="${escape(challenge)}">
<input id="platform_username" name="username" value="${escape(hint)}"><input id="platform_password" name="password" type="password">
<button id="platform_sign_in" name="action" value="sign_in">Sign in</button><button id="platform_refuse" name="action" value="refuse">Refuse</button></form>`),
        )
      }
      if (request.method === 'POST' && url.pathname === '/login') {
        const chunks: Buffer[] = []
        for await (const chunk of request) chunks.push(chunk as Buffer)
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
        const challenge = encodeURIComponent(form.get('login_challenge') ?? '')
        const person = PLATFORM_PEOPLE[form.get('username') ?? '']
        const answer =
          form.get('action') === 'sign_in' && person && person.password === form.get('password')
            ? await callAdmin('PUT', `/admin/v1/login-challenges/${challenge}/accept`, { subject: person.subject, screen_name: form.get('username'), name: person.name })
            : await callAdmin('PUT', `/admin/v1/login-challenges/${challenge}/reject`, { error: 'access_denied', error_description: 'The platform does not know this person.' })
        if (answer.status !== 200) return response.writeHead(400, { 'content-type': 'text/html' }).end(page(`<p id="platform_error">Answer refused: ${answer.status}</p>`))
        return response.writeHead(302, { location: String(answer.json.redirect_to) }).end()
      }
      response.writeHead(404).end()
    })().catch((error: unknown) => response.writeHead(500).end(String(error)))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  platform.loginUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/login`
  platform.close = () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections()
      server.close((error) => (error ? reject(error) : resolve()))
    })
  return platform
}
