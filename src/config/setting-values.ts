import { z } from 'zod'

// The kinds of value settings take, each with the one message a wrong value gets (settings.ts).

export const bool = z.union([
  z.boolean(),
  z.enum(['true', '1', 'yes', 'false', '0', 'no']).transform((v) => ['true', '1', 'yes'].includes(v)),
])
/** Digits only: `z.coerce.number()` would take " " as 0 and "0x50" or "1e3" as numbers. */
export const wholeNumber = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v), schema)
export const NOT_WHOLE = 'must be a whole number'
export const positiveInt = wholeNumber(z.number({ invalid_type_error: NOT_WHOLE }).int(NOT_WHOLE).positive())
export const port = wholeNumber(z.number({ invalid_type_error: NOT_WHOLE }).int(NOT_WHOLE).min(0).max(65535))
export const httpUrl = z
  .string()
  .url()
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http:// or https:// URL')

/** `on`, `off`, or directives of RFC 6797 §6.1 separated by commas; turned into the header's value (undefined when off). */
export const hstsPolicy = z.string().transform((value, context) => {
  const policy = value.trim()
  if (policy === 'off') return undefined
  let maxAge = 'max-age=31536000'
  const flags: string[] = []
  for (const part of policy === 'on' ? [] : policy.split(',').map((p) => p.trim())) {
    if (/^max-age=\d{1,9}$/.test(part)) maxAge = part
    else if (part === 'includeSubDomains' || part === 'preload') flags.push(part)
    else {
      context.addIssue({ code: z.ZodIssueCode.custom, message: 'must be on, off, or a comma list of max-age=SECONDS, includeSubDomains, preload' })
      return z.NEVER
    }
  }
  return [maxAge, ...flags].join('; ')
})
