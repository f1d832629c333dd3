import Bowser from 'bowser'

/** "Firefox on Linux", as the sessions page names a browser; undefined when the user agent names neither. */
export function browserName(userAgent: string): string | undefined {
  if (userAgent === '') return undefined
  const { browser, os } = Bowser.parse(userAgent)
  if (browser.name && os.name) return `${browser.name} on ${os.name}`
  return browser.name || os.name || undefined
}
