/**
 * HTML built with a tagged template that escapes every interpolation, so text written by strangers
 * (app names, descriptions, typed usernames) can never become markup. Only SafeHtml, which comes
 * from `html` itself or an explicit `raw()`, is inserted as it is.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[]

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => ESCAPES[char] ?? char)
}

/** Markup we wrote ourselves; never pass it anything that came from a request or the database. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup)
}

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  // null, undefined and false render as nothing, so `${cond && html`…`}` reads naturally.
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? ''
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '')
  })
  return new SafeHtml(out)
}
