import type { AppSettings } from '../../domain/registry/apps.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { AppFormValues } from '../views/console-apps.ts'

/** The app form's fields as typed (so a form that comes back with an error keeps them). */
export function appFormOf(fields: Map<string, string>): AppFormValues {
  return {
    name: fields.get('name') ?? '',
    description: fields.get('description') ?? '',
    website: (fields.get('website') ?? '').trim(),
    callbackUrls: fields.get('callbacks') ?? '',
    type: fields.get('type') ?? '',
    accessLevel: fields.get('access_level') ?? '',
    signIn: fields.get('sign_in') === 'on',
  }
}

/** The form as the registry's settings: one callback URL per non-empty line. */
export function settingsOf(values: AppFormValues): AppSettings {
  return {
    name: values.name,
    description: values.description,
    website: values.website,
    callbackUrls: values.callbackUrls.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== ''),
    type: values.type,
    accessLevel: values.accessLevel,
    isSignInEnabled: values.signIn,
  }
}

/** A refusal the person can fix by changing the form (400 or 409), rather than an error page. */
export function isFormMistake(error: unknown): error is ServiceError {
  return error instanceof ServiceError && (error.status === 400 || error.status === 409)
}
