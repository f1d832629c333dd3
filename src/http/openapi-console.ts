/**
 * The developer console's and Connected apps' pages in the public OpenAPI document: HTML for people,
 * listed so that the document names every path the public port answers. Each form posts
 * application/x-www-form-urlencoded with the session's csrf_token.
 */
const html = { 'text/html': { schema: { type: 'string' } } }
const appId = [{ name: 'app_id', in: 'path', required: true, schema: { type: 'string', pattern: '^\\d{1,20}$' } }]
const appAndWebhookId = [...appId, { name: 'webhook_id', in: 'path', required: true, schema: { type: 'string' } }]

/** The path's parameters: none, the app's id, or the app's and one of its webhooks'. */
type PathIds = false | true | 'webhook'
const parametersOf = (ids: PathIds) => (ids === 'webhook' ? { parameters: appAndWebhookId } : ids ? { parameters: appId } : {})

function page(operationId: string, summary: string, ids: PathIds = false) {
  return {
    get: {
      operationId,
      tags: ['console'],
      summary,
      ...parametersOf(ids),
      responses: {
        '200': { description: 'The page (or the sign-in form when nobody is signed in).', content: html },
        '4XX': { description: 'A page that says what went wrong; another developer\'s app is a 404.', content: html },
      },
    },
  }
}

/** A POST form; the sensitive ones (keys, tokens, delete) may answer "Confirm your password" first (sudo_password). */
function form(operationId: string, summary: string, ids: PathIds = false) {
  return {
    post: {
      operationId,
      tags: ['console'],
      summary,
      ...parametersOf(ids),
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['csrf_token'], properties: { csrf_token: { type: 'string' } } } } } },
      responses: {
        '200': { description: 'The page again, with the result or the form error.', content: html },
        '302': { description: 'To the page that shows the result.' },
        '4XX': { description: 'A page that says what went wrong (403: the form did not come from this site).', content: html },
      },
    },
  }
}

export function consolePaths(): Record<string, object> {
  return {
    '/console': page('consolePage', 'The apps the developer owns'),
    '/console/sign-in': form('consoleSignIn', 'Sign in (username, password, next)'),
    '/console/sign-out': form('consoleSignOut', 'Sign out: the session ends on the server, a copy of the cookie included'),
    '/console/sudo': form('confirmPassword', 'Confirm the password (sudo_password) before a page that shows a secret; to next'),
    '/console/signup': { ...page('signUpPage', 'The sign-up form (only with --allow-signup)'), ...form('signUp', 'Create an account: screen_name, name, password') },
    '/console/apps/new': page('newAppPage', 'The new app form'),
    '/console/apps': form('createApp', "Create an app; to its page, which shows the secret once"),
    '/console/apps/{app_id}': { ...page('appPage', "An app's page", true), ...form('updateApp', "Change an app's settings", true) },
    '/console/apps/{app_id}/suspend': form('suspendApp', 'Suspend the app', true),
    '/console/apps/{app_id}/unsuspend': form('unsuspendApp', 'Lift the suspension', true),
    '/console/apps/{app_id}/delete': { ...page('deleteAppPage', 'The confirmation step', true), ...form('deleteApp', 'Delete the app', true) },
    '/console/apps/{app_id}/keys': form('regenerateKeys', 'New consumer key and secret, with an optional grace period', true),
    '/console/apps/{app_id}/owner-token': form('ownerToken', "The developer's own access token, shown on the answer", true),
    '/console/apps/{app_id}/owner-token/invalidate': form('invalidateOwnerToken', "Invalidate the developer's access tokens for the app", true),
    '/console/apps/{app_id}/bearer-token': form('consoleBearerToken', "The app's bearer token, shown on the answer", true),
    '/console/apps/{app_id}/bearer-token/invalidate': form('consoleInvalidateBearerToken', "Invalidate the app's bearer token", true),
    '/console/apps/{app_id}/oauth2': form('consoleOAuth2Settings', 'User authentication settings: OAuth 2.0 off, confidential or public (oauth2=…); a new client secret is shown on the answer', true),
    '/console/apps/{app_id}/oauth2/secret': form('consoleRegenerateClientSecret', 'A new OAuth 2.0 client secret, shown on the answer; every grant ends', true),
    '/console/apps/{app_id}/failures': page('signatureFailures', "The app's signature failures of the last 24 hours", true),
    '/console/apps/{app_id}/oauth-tool': {
      ...page('oauthToolPage', 'The OAuth tool: a form to sign a request with the app (and the developer\'s token)', true),
      ...form('oauthTool', 'Sign a request (method, url, parameters, with_token): its base string, Authorization header and curl command', true),
    },
    '/console/apps/{app_id}/webhooks': {
      ...page('consoleWebhooks', "The app's revocation webhooks: each endpoint's state, pending and failed events, last error", true),
      ...form('consoleAddWebhook', 'Register a webhook (url): its signing secret is shown once on the answer', true),
    },
    '/console/apps/{app_id}/webhooks/{webhook_id}/verify': form('consoleVerifyWebhook', "Run X's CRC challenge against the endpoint; deliveries start once it answers", 'webhook'),
    '/console/apps/{app_id}/webhooks/{webhook_id}/remove': form('consoleRemoveWebhook', 'Remove the endpoint and what waits for it', 'webhook'),
    '/settings/connected_apps': page('connectedApps', 'The apps the person has authorized'),
    '/settings/connected_apps/revoke': form('revokeConnectedApp', 'Revoke an app (revoke=<app id>)'),
    '/settings/sessions': page('browserSessions', "The person's browser sessions: browser, address, signed in, last seen"),
    '/settings/sessions/end': form('endBrowserSession', 'Sign out one session (session=<id>)'),
    '/settings/sessions/end-others': form('endOtherBrowserSessions', 'Sign out of all other sessions'),
    '/settings/password': { ...page('passwordPage', 'The password change form'), ...form('changePassword', 'Change the password (current_password, new_password): every session ends, this browser gets a new one') },
  }
}
