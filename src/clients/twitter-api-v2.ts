// A twitter-api-v2 plugin that points the library at Latchkey: twitter-api-v2 writes X's hosts
// (api.x.com, upload.x.com, x.com's authorize page) into every URL it makes; this plugin keeps the
// path and query and swaps the origin for Latchkey's. Exported as `latchkey/twitter-api-v2`.
// twitter-api-v2 is named for its types only: nothing of it is loaded at run time.
import type { ITwitterApiClientPlugin } from 'twitter-api-v2'

/** The same path and query, at `base` (e.g. `http://127.0.0.1:8080`, or one with a path prefix). */
export function rebaseUrl(url: string, base: string): string {
  const from = new URL(url)
  return `${base.replace(/\/+$/, '')}${from.pathname}${from.search}`
}

/**
 * `new TwitterApi(credentials, { plugins: [latchkey(base)] })`: every API request, token request
 * and OAuth 2.0 authorize link goes to Latchkey at `base`. OAuth 1.0a requests are signed after
 * the plugin has changed the URL, so their signatures are Latchkey's to check.
 */
export function latchkey(base: string): ITwitterApiClientPlugin {
  const origin = new URL(base)
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:') throw new TypeError(`latchkey(base): an http or https URL, not ${base}`)
  return {
    onBeforeRequestConfig({ params }) {
      const url = params.url.toString()
      // The library reads the OAuth 1.0a token answers as a form only at X's own host: keep that at ours.
      if (new URL(url).pathname.startsWith('/oauth/')) params.forceParseMode ??= 'url'
      params.url = rebaseUrl(url, base)
    },
    onOAuth2RequestToken({ result }) {
      result.url = rebaseUrl(result.url, base)
    },
  }
}
