import { E } from '../errors/catalogue.ts'
import { assertThat } from '../errors/service-error.ts'

/**
 * Control characters (C0, DEL, C1) except the line breaks and tab of a multi-line text. PostgreSQL
 * refuses U+0000 in text outright, and none of them belongs in a name, a description or a URL:
 * they are refused as the field's mistake, the same on every backend.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/

/**
 * Half of a surrogate pair without its other half: not Unicode text. JSON can carry one (`"\ud800"`);
 * the database would store U+FFFD in its place, so what was stored would differ from what was answered.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function assertText(value: string, control: RegExp, field: string, label: string): void {
  assertThat(!control.test(value), E.invalidParameter, { message: `${label} must not contain control characters`, field })
  assertThat(!LONE_SURROGATE.test(value), E.invalidParameter, { message: `${label} must be valid Unicode text`, field })
}

/** Refuses a one-line text field holding a control character or a lone surrogate (400, code 1003, the field named). */
export function assertOneLine(value: string, field: string, label: string): void {
  assertText(value, CONTROL, field, label)
}

/** Refuses a multi-line text field holding a control character other than tab, CR and LF, or a lone surrogate. */
export function assertMultiLine(value: string, field: string, label: string): void {
  assertText(value, CONTROL_BUT_LINES, field, label)
}
