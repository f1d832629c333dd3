import { shellQuoted } from '../../domain/console/oauth-tool.ts'
import { html, type SafeHtml } from './html.ts'
import { layout } from './layout.ts'

/** The demo of a development server, as the front door shows it. */
export interface HomeDemo {
  screenName: string
  password: string
  appId: string
  consumerKey: string
  consumerSecret: string
}

export interface HomeView {
  /** This service's scheme and host, as clients reach it. */
  origin: string
  /** The admin API's base URL, when its listener is known: named in development only. */
  adminUrl: string | undefined
  dev: boolean
  demo: HomeDemo | undefined
}

function demoSection(view: HomeView, demo: HomeDemo): SafeHtml {
  const { origin } = view
  const bearer = [
    `TOKEN=$(curl -s -u ${shellQuoted(`${demo.consumerKey}:${demo.consumerSecret}`)} --data grant_type=client_credentials ${origin}/oauth2/token | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')`,
    `curl -H "Authorization: Bearer $TOKEN" ${origin}/1.1/application/rate_limit_status.json`,
  ].join('\n')
  const pin = `node examples/pin-flow.mjs ${origin} ${demo.consumerKey} ${demo.consumerSecret}`
  return html`<section aria-labelledby="try_it"><h2 id="try_it">Try it: the demo (development only)</h2>
<p>The first start made a demo person and a demo app (<code>npm run -s latchkey -- demo</code> shows them again).</p>
<dl>
<dt>Sign in as</dt><dd><code id="demo_screen_name">${demo.screenName}</code> with the password <code id="demo_password">${demo.password}</code></dd>
<dt>Demo app's consumer key</dt><dd><code id="demo_consumer_key">${demo.consumerKey}</code></dd>
<dt>and consumer secret</dt><dd><code id="demo_consumer_secret">${demo.consumerSecret}</code></dd>
</dl>
<h3>An app-only bearer token, then a call with it</h3>
<code class="secret" id="bearer_command">${bearer}</code><button type="button" class="copy" data-copy="bearer_command">Copy</button>
<h3>The PIN flow (OAuth 1.0a, three-legged), in this repository</h3>
<p>It prints a link: open it, sign in as the demo person, allow, and type the PIN it shows.</p>
<code class="secret" id="pin_command">${pin}</code><button type="button" class="copy" data-copy="pin_command">Copy</button>
<p><a href="/console/apps/${demo.appId}/oauth-tool" id="oauth_tool">The OAuth tool</a> signs any request of the demo app for you, as a curl command.</p>
</section>`
}

/** GET /: what this service is and where to go next. */
export function homePage(view: HomeView): string {
  // Never a link to the admin listener: it is not the public side's to show. On a development
  // server both listen on this machine, so its address is named (as text) for a newcomer.
  const admin = view.dev && view.adminUrl
    ? html`the admin API's, on its own listener at <code id="admin_openapi">${view.adminUrl}/admin/v1/openapi.json</code> (every call needs an admin token)`
    : html`the admin API's, on the admin listener at <code>/admin/v1/openapi.json</code> (every call needs an admin token)`
  return layout(
    'Latchkey',
    html`<h1>Latchkey</h1>
<p>An OAuth token service that speaks X's (Twitter's) endpoints, so that unmodified client libraries work against it: OAuth 1.0a (three-legged, and the PIN flow), app-only OAuth 2.0 bearer tokens, and OAuth 2.0 with PKCE acting for a person. The APIs behind it check every credential it issued.</p>
<ul>
<li><a href="/console" id="console">The developer console</a>: register apps, get their keys and tokens, sign a request with the OAuth tool.</li>
<li><a href="/settings/connected_apps" id="connected_apps">Connected apps</a>: the apps you have allowed to use your account, and revoking them.</li>
<li>The OpenAPI documents: <a href="/openapi.json" id="public_openapi">the public endpoints'</a>, and ${admin}.</li>
<li><a href="/docs/" id="docs">The documentation</a>.</li>
</ul>
${view.dev && view.demo && demoSection(view, view.demo)}`,
    { width: 'wide', script: true },
  )
}
