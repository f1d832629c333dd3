import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'

/**
 * Field checks run one after another, each even after another failed, so that a refused form or
 * body names every bad field at once rather than the first. done() throws: the one refusal as it
 * was, or for several one 400 whose message joins theirs and whose `fields` lists each.
 */
export function everyField() {
  const refusals: ServiceError[] = []
  return {
    run<T>(check: () => T): T | undefined {
      try {
        return check()
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error
        refusals.push(error)
        return undefined
      }
    },
    done(): void {
      if (refusals.length === 1) throw refusals[0]!
      if (refusals.length > 1) {
        throw new ServiceError(E.invalidParameter, {
          message: refusals.map((r) => r.message).join('; '),
          field: refusals[0]!.field ?? '',
          fields: refusals.flatMap((r) => r.fields),
        })
      }
    },
  }
}
