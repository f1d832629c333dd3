/** What the CLI prints: exactly one JSON document with --json, readable lines without. */
export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`)
}

/** `key: value` lines for a flat object. */
export function lines(view: Record<string, unknown>): string {
  return Object.entries(view)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(' ') || '-' : String(value)}`)
    .join('\n')
}
