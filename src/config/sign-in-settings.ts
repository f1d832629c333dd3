import { z } from 'zod'
import { httpUrl, positiveInt } from './setting-values.ts'
import type { SettingDef } from './settings.ts'

// How people sign in (docs/accounts.md): login delegation to the platform's own login page, and
// whether a password is offered at all. Spread into SETTINGS (settings.ts).

const setting = <T extends z.ZodTypeAny>(def: SettingDef<T>): SettingDef<T> => def

export const SIGN_IN_SETTINGS = {
  loginUrl: setting({
    flag: '--login-url <url>',
    env: 'LATCHKEY_LOGIN_URL',
    schema: httpUrl.optional(),
    default: undefined,
    description:
      "Login delegation: the platform's own login page. With it set, the sign-in forms offer \"Sign in with <login name>\", which sends the browser there with a one-time `login_challenge` (docs/accounts.md).",
  }),
  loginName: setting({
    flag: '--login-name <text>',
    env: 'LATCHKEY_LOGIN_NAME',
    schema: z.string().trim().min(1).max(40),
    default: 'your account',
    description: 'Login delegation: the label of its button, "Sign in with <login name>".',
  }),
  loginChallengeSeconds: setting({
    flag: '--login-challenge-seconds <seconds>',
    env: 'LATCHKEY_LOGIN_CHALLENGE_SECONDS',
    schema: positiveInt,
    default: 600,
    description: 'Login delegation: how long a `login_challenge` may be answered and used, from the moment the browser leaves for the login page.',
  }),
  loginLink: setting({
    flag: '--login-link <policy>',
    env: 'LATCHKEY_LOGIN_LINK',
    schema: z.enum(['create', 'email', 'screen_name']),
    default: 'create',
    description:
      'Login delegation: what a first sign-in of a subject does: `create` a person for it, or link it only to the existing person of the same `email` or `screen_name`.',
  }),
  passwordSignIn: setting({
    flag: '--password-sign-in <on|off>',
    env: 'LATCHKEY_PASSWORD_SIGN_IN',
    schema: z.enum(['on', 'off']).transform((v) => v === 'on'),
    default: 'on',
    description:
      'People may sign in with a password on the consent pages and the console. Off: no password field is shown, a posted password is refused (code 1116) and counted nowhere, and the console has no sign-up.',
  }),
} as const
