import { E } from '../../errors/catalogue.ts'
import { assertThat } from '../../errors/service-error.ts'
import { assertOneLine } from '../plain-text.ts'

/** One `@` between a local part and a domain, no spaces, at most 254 characters (RFC 5321's path limit). */
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/

/** A person's e-mail address as given, trimmed; 400 code 1003 naming `email` when it cannot be one. */
export function validEmail(text: string): string {
  const email = text.trim()
  assertOneLine(email, 'email', 'email')
  assertThat(email.length <= 254 && EMAIL.test(email), E.invalidParameter, { message: 'email must be an e-mail address (name@example.org)', field: 'email' })
  return email
}
